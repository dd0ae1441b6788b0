import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeMultipart } from '../../sandbox/shared/multipart.js';
import { signBody } from '../../sandbox/mailprovider/signing.js';
import { parseForm, field } from '../../src/connectors/email/form.js';
import { SignatureVerifier } from '../../src/connectors/email/signature.js';
import { parseMailboxes, formatMailbox } from '../../src/connectors/email/addresses.js';
import { escapeHtml, renderMail, subjectFor, threadHeaders } from '../../src/connectors/email/render.js';
import { strippedText } from '../../src/connectors/email/inbound.js';
import { retryAfterOf } from '../../src/connectors/email/api.js';

// The email connector's parsing and rendering without the service, over bodies and signatures
// made by the mail stand-in's own code.

test('multipart forms as the provider posts them: fields and files, byte for byte', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x2d, 0x2d]);
  const { body, contentType } = encodeMultipart(
    [
      ['subject', 'Zip — broken'],
      ['body-plain', 'line 1\r\nline 2'],
    ],
    [{ field: 'attachment-1', fileName: 'zip.png', contentType: 'image/png', data: png }],
  );
  const parts = parseForm(contentType, body);
  assert.ok(parts);
  assert.equal(field(parts, 'subject'), 'Zip — broken');
  assert.equal(field(parts, 'body-plain'), 'line 1\r\nline 2');
  const file = parts.find((p) => p.name === 'attachment-1')?.file;
  assert.deepEqual(file && [file.fileName, file.mimeType, Buffer.compare(file.bytes, png)], ['zip.png', 'image/png', 0]);
  assert.equal(parseForm('multipart/form-data; boundary=nothere', Buffer.from('garbage')), null);
  assert.equal(parseForm('application/json', Buffer.from('{}')), null);
});

test('signatures made by the stand-in verify; age, future, key and token reuse are refused', () => {
  let now = 1_800_000_000_000;
  const verifier = new SignatureVerifier(12 * 3600_000, () => now);
  const body = Buffer.from('a=1');
  const sig = signBody('key-1', now);
  assert.equal(sig.token.length, 50);
  assert.deepEqual(verifier.verify('key-1', sig, body), { ok: true });
  assert.deepEqual(verifier.verify('key-1', sig, body), { ok: true }, 'the same body again: a retry');
  assert.equal(verifier.verify('key-1', sig, Buffer.from('a=2')).ok, false, 'the token over another body');
  assert.equal(verifier.verify('key-2', signBody('key-1', now), body).ok, false);
  assert.equal(verifier.verify(undefined, signBody('key-1', now), body).ok, false);
  assert.equal(verifier.verify('key-1', { ...signBody('key-1', now), signature: undefined }, body).ok, false);
  assert.equal(verifier.verify('key-1', signBody('key-1', now - 12 * 3600_000 - 2000), body).ok, false, 'older than the window');
  assert.equal(verifier.verify('key-1', signBody('key-1', now - 12 * 3600_000 + 2000), body).ok, true, 'just inside it');
  assert.equal(verifier.verify('key-1', signBody('key-1', now + 6 * 60_000), body).ok, false, 'from the future');
  // Once its timestamp is out of the window, a token is forgotten (and its call refused by age anyway).
  now += 13 * 3600_000;
  assert.equal(verifier.verify('key-1', sig, body).ok, false);
});

test('address lists: quoted names with commas, bare addresses, names formatted back', () => {
  assert.deepEqual(parseMailboxes('Shop <Shop@Example.com>, "Sales, EU" <sales@example.com>, plain@example.com, not an address'), [
    { email: 'shop@example.com', name: 'Shop' },
    { email: 'sales@example.com', name: 'Sales, EU' },
    { email: 'plain@example.com', name: null },
  ]);
  assert.equal(formatMailbox('a@example.com', 'Novák, Karel'), '"Novák, Karel" <a@example.com>');
  assert.equal(formatMailbox('a@example.com', 'Jana'), 'Jana <a@example.com>');
  assert.equal(formatMailbox('a@example.com', undefined), 'a@example.com');
});

test('stripped text: quoted history and signature removed', () => {
  assert.equal(strippedText('Yes please.\r\n\r\nOn Mon, Jan 1 Shop wrote:\r\n> Which size?'), 'Yes please.');
  assert.equal(strippedText('Thanks\n> quoted\nmore\n-- \nJana'), 'Thanks\nmore');
});

test('rendering: escaping, subjects, threading headers', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  const conversation = [
    { externalId: 'a@mg', direction: 'sent' as const, metadata: { email: { subject: 'Order' } } },
    { externalId: 'b@client', direction: 'received' as const, metadata: { email: { subject: 'RE: Order', to: [] } } },
    { externalId: 'b@client#1', direction: 'received' as const },
  ];
  assert.equal(subjectFor(undefined, conversation, 'Default'), 'RE: Order', 'a reply subject is not prefixed again');
  assert.equal(subjectFor(undefined, conversation.slice(0, 1), 'Default'), 'Re: Order');
  assert.equal(subjectFor({ email: { subject: 'New' } }, conversation, 'Default'), 'New');
  assert.equal(subjectFor(undefined, [], 'Default'), 'Default');
  assert.deepEqual(threadHeaders(conversation), { 'In-Reply-To': '<b@client>', References: '<a@mg> <b@client>' });
  assert.deepEqual(threadHeaders([]), {});
  const mail = renderMail({ type: 'text', payload: 'a < b\nc' }, undefined, [], 'S');
  assert.equal(mail.text, 'a < b\nc');
  assert.match(mail.html, /<p>a &lt; b<br>\nc<\/p>/);
});

test("a 429's wait: the date its message names, else Retry-After", () => {
  const now = Date.parse('Tue, 24 Nov 2026 03:00:00 GMT');
  assert.equal(retryAfterOf('Rate limit exceeded for messages; try again after Tue, 24 Nov 2026 03:01:30 GMT', null, now), 90_000);
  assert.equal(retryAfterOf('Too many requests', '12', now), 12_000);
  assert.equal(retryAfterOf('Too many requests', null, now), undefined);
});
