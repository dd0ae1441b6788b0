import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeMultipart } from '../../sandbox/shared/multipart.js';
import { signBody } from '../../sandbox/mailprovider/signing.js';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { formOf, field } from '../../src/connectors/email/form.js';
import { SignatureVerifier, digestOf } from '../../src/connectors/email/signature.js';
import { readStreamedForm } from '../../src/api/streamed-form.js';
import type { ApiError } from '../../src/lib/errors.js';
import { parseMailboxes, formatMailbox } from '../../src/connectors/email/addresses.js';
import { escapeHtml, renderMail, subjectFor, threadHeaders } from '../../src/connectors/email/render.js';
import { strippedText } from '../../src/connectors/email/inbound.js';
import { retryAfterOf } from '../../src/connectors/email/api.js';

// The email connector's parsing and rendering without the service, over bodies and signatures
// made by the mail stand-in's own code.

test('multipart forms as the provider posts them, read as a stream: fields, files staged byte for byte, the raw digest', async () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x2d, 0x2d]);
  const { body, contentType } = encodeMultipart(
    [
      ['subject', 'Zip — broken'],
      ['body-plain', 'line 1\r\nline 2'],
    ],
    [{ field: 'attachment-1', fileName: 'zip.png', contentType: 'image/png', data: png }],
  );
  const staged = await readStreamedForm(Readable.from([body]), { 'content-type': contentType }, body.length);
  try {
    const read = formOf({ method: 'POST', endpoint: 'mail', url: '', headers: {}, query: {}, rawBody: Buffer.alloc(0), form: staged.form });
    assert.ok(read);
    assert.equal(read.bodyDigest, createHash('sha256').update(body).digest('hex'));
    assert.equal(field(read.parts, 'subject'), 'Zip — broken');
    assert.equal(field(read.parts, 'body-plain'), 'line 1\r\nline 2');
    const file = read.parts.find((p) => p.name === 'attachment-1')?.file;
    assert.ok(file);
    assert.deepEqual([file.name, file.mimeType, file.size], ['zip.png', 'image/png', png.length]);
    const chunks: Buffer[] = [];
    for await (const chunk of file.open()) chunks.push(chunk as Buffer);
    assert.deepEqual(Buffer.concat(chunks), png);
  } finally {
    await staged.discard();
  }
  await assert.rejects(readStreamedForm(Readable.from([body]), { 'content-type': contentType }, body.length - 1), (e: ApiError) => e.status === 413);
  await assert.rejects(
    readStreamedForm(Readable.from([Buffer.from('garbage')]), { 'content-type': 'multipart/form-data; boundary=nothere' }, 100),
    (e: ApiError) => e.status === 400,
  );
  const urlencoded = { method: 'POST', endpoint: 'mail', url: '', query: {}, rawBody: Buffer.from('a=1&b=%C3%A9') };
  assert.deepEqual(formOf({ ...urlencoded, headers: { 'content-type': 'application/x-www-form-urlencoded' } })?.parts, [
    { name: 'a', value: '1' },
    { name: 'b', value: 'é' },
  ]);
  assert.equal(formOf({ ...urlencoded, headers: { 'content-type': 'application/json' } }), null);
});

test('signatures made by the stand-in verify and bind the body; age, future and key are refused', () => {
  const now = 1_800_000_000_000;
  const verifier = new SignatureVerifier(12 * 3600_000, () => now);
  const body = digestOf(Buffer.from('a=1'));
  const sig = signBody('key-1', now);
  assert.equal(sig.token.length, 50);
  const first = verifier.verify('key-1', sig, body);
  assert.ok(first.ok);
  assert.equal(first.binding.bodyDigest, body);
  assert.equal(first.binding.expiresAt, Math.floor(now / 1000) * 1000 + 12 * 3600_000, 'bound as long as the timestamp is accepted');
  // The check itself is pure: the same signature over another body verifies, under the same binding name, for the store to refuse.
  const other = verifier.verify('key-1', sig, digestOf(Buffer.from('a=2')));
  assert.ok(other.ok);
  assert.equal(other.binding.key, first.binding.key);
  assert.notEqual(other.binding.bodyDigest, first.binding.bodyDigest);
  assert.equal(verifier.verify('key-2', signBody('key-1', now), body).ok, false);
  assert.equal(verifier.verify(undefined, signBody('key-1', now), body).ok, false);
  assert.equal(verifier.verify('key-1', { ...signBody('key-1', now), signature: undefined }, body).ok, false);
  assert.equal(verifier.verify('key-1', signBody('key-1', now - 12 * 3600_000 - 2000), body).ok, false, 'older than the window');
  assert.equal(verifier.verify('key-1', signBody('key-1', now - 12 * 3600_000 + 2000), body).ok, true, 'just inside it');
  assert.equal(verifier.verify('key-1', signBody('key-1', now + 6 * 60_000), body).ok, false, 'from the future');
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
