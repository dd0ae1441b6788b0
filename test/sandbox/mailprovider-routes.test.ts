import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMailproviderStandIn } from '../../sandbox/mailprovider/server.js';
import { startReceiver } from './helpers/receiver.js';
import { at, post } from './helpers/http.js';

// Route matching as the provider does it (platforms.md §9): expressions search anywhere in the
// value, catch_all() matches only when no earlier route did, forward() URLs take the captures.

const KEY = 'key-routes-1';
const auth = { authorization: `Basic ${Buffer.from(`api:${KEY}`).toString('base64')}` };

async function route(base: string, fields: Array<[string, string]>): Promise<void> {
  const res = await fetch(`${base}/v3/routes`, { method: 'POST', body: new URLSearchParams(fields), headers: auth });
  assert.equal(res.status, 200, await res.text());
}

test('expressions match anywhere, catch_all() only when nothing earlier matched, forward() substitutes captures', async (t) => {
  const standIn = createMailproviderStandIn({ apiKey: KEY, webhookSigningKey: 'sign', domains: ['mg.example.test'] });
  const base = await standIn.listen(0);
  const receiver = await startReceiver(() => ({ status: 200 }));
  t.after(async () => {
    await standIn.close();
    await receiver.close();
  });
  await route(base, [
    ['priority', '1'],
    ['expression', 'match_header("subject", ".*support")'],
    ['action', `forward("${receiver.url}/subject")`],
  ]);
  await route(base, [
    ['priority', '2'],
    ['expression', 'match_recipient("^(?P<box>[a-z]+)@mg\\.example\\.test$")'],
    ['action', `forward("${receiver.url}/box/\\g<box>")`],
  ]);
  await route(base, [
    ['priority', '3'],
    ['expression', 'catch_all()'],
    ['action', `forward("${receiver.url}/catchall")`],
  ]);

  // A subject that merely contains "support" matches the search; the recipient route matches too.
  const both = await post(`${base}/_sandbox/inbound`, { recipient: 'sales@mg.example.test', from: 'a@example.com', subject: 'Need support today', text: 'x' });
  assert.equal((at(both.body, 'forwards') as unknown[]).length, 2, JSON.stringify(both.body));
  assert.deepEqual(
    receiver.received.map((r) => r.path),
    ['/subject', '/box/sales'],
    'no catch-all after routes that matched',
  );

  // An anchored expression matches whole addresses only; nothing else matched: the catch-all takes it.
  const other = await post(`${base}/_sandbox/inbound`, { recipient: 'sales.team@mg.example.test', from: 'a@example.com', subject: 'Hello', text: 'x' });
  assert.equal((at(other.body, 'forwards') as unknown[]).length, 1, JSON.stringify(other.body));
  assert.equal(receiver.received.at(-1)?.path, '/catchall');
});

test('every header is posted in message-headers, repeated ones included', async (t) => {
  const standIn = createMailproviderStandIn({ apiKey: KEY, webhookSigningKey: 'sign', domains: ['mg.example.test'] });
  const base = await standIn.listen(0);
  const receiver = await startReceiver(() => ({ status: 200 }));
  t.after(async () => {
    await standIn.close();
    await receiver.close();
  });
  await route(base, [
    ['expression', 'match_recipient("^shop@mg\\.example\\.test$")'],
    ['action', `forward("${receiver.url}/mail")`],
  ]);
  await post(`${base}/_sandbox/inbound`, {
    recipient: 'shop@mg.example.test',
    from: 'a@example.com',
    subject: 'Re: x',
    text: 'y',
    headers: [
      ['Received', 'from a'],
      ['Received', 'from b'],
      ['In-Reply-To', '<m1@mg.example.test>'],
      ['References', '<m0@mg.example.test> <m1@mg.example.test>'],
    ],
  });
  const fields = new URLSearchParams(receiver.received.at(-1)?.text ?? '');
  const headers = JSON.parse(fields.get('message-headers') ?? '[]') as Array<[string, string]>;
  assert.deepEqual(
    headers.filter(([k]) => k === 'Received').map(([, v]) => v),
    ['from a', 'from b'],
  );
  assert.ok(headers.some(([k, v]) => k === 'References' && v === '<m0@mg.example.test> <m1@mg.example.test>'));
  assert.ok(
    headers.some(([k]) => k === 'Message-Id'),
    'the defaults stay',
  );
});
