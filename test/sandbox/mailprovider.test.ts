import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createMailproviderStandIn } from '../../sandbox/mailprovider/server.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { at, get, post } from './helpers/http.js';

const KEY = 'key-sandbox-1';
const SIGNING = 'webhook-signing-key';
const DOMAIN = 'mg.example.test';

interface Setup {
  base: string;
  receiver: Receiver;
  auth: Record<string, string>;
}

async function setup(t: TestContext): Promise<Setup> {
  const standIn = createMailproviderStandIn({ apiKey: KEY, webhookSigningKey: SIGNING, domains: [DOMAIN] });
  const base = await standIn.listen(0);
  const receiver = await startReceiver(() => ({ status: 200 }));
  t.after(async () => {
    await standIn.close();
    await receiver.close();
  });
  return { base, receiver, auth: { authorization: `Basic ${Buffer.from(`api:${KEY}`).toString('base64')}` } };
}

async function postForm(
  url: string,
  fields: Array<[string, string]>,
  headers: Record<string, string>,
): Promise<{ status: number; body: unknown; text: string }> {
  const res = await fetch(url, { method: 'POST', body: new URLSearchParams(fields), headers });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    // plain text
  }
  return { status: res.status, body, text };
}

function signatureOk(sig: { timestamp?: unknown; token?: unknown; signature?: unknown }): boolean {
  return (
    sig.signature ===
    createHmac('sha256', SIGNING)
      .update(`${String(sig.timestamp)}${String(sig.token)}`)
      .digest('hex')
  );
}

const basic: Array<[string, string]> = [
  ['from', 'Shop <shop@mg.example.test>'],
  ['to', 'alice@example.com'],
  ['subject', 'Your order'],
  ['text', 'Thanks!'],
];

test('basic auth and message validation', async (t) => {
  const s = await setup(t);
  const bad = await postForm(`${s.base}/v3/${DOMAIN}/messages`, basic, { authorization: `Basic ${Buffer.from('api:wrong').toString('base64')}` });
  assert.equal(bad.status, 401);
  assert.equal(bad.text, 'Forbidden');
  const ok = await postForm(`${s.base}/v3/${DOMAIN}/messages`, basic, s.auth);
  assert.equal(ok.status, 200);
  assert.match(String(at(ok.body, 'id')), new RegExp(`^<\\d{14}\\.\\d{5}\\.\\d{4}@${DOMAIN.replace(/\./g, '\\.')}>$`));
  assert.equal(at(ok.body, 'message'), 'Queued. Thank you.');
  const cases: Array<[Array<[string, string]>, number, RegExp]> = [
    [basic.filter(([k]) => k !== 'from'), 400, /'from' parameter is missing/],
    [basic.filter(([k]) => k !== 'to'), 400, /'to' parameter is missing/],
    [basic.filter(([k]) => k !== 'text'), 400, /Need at least one of 'text', 'html'/],
    [[...basic.filter(([k]) => k !== 'to'), ['to', 'not-an-address']], 400, /not a valid address/],
    [[...basic, ['to', Array.from({ length: 1000 }, (_, i) => `u${i}@example.com`).join(',')]], 400, /Too many recipients; max is 1000/],
  ];
  for (const [fields, status, pattern] of cases) {
    const res = await postForm(`${s.base}/v3/${DOMAIN}/messages`, fields, s.auth);
    assert.equal(res.status, status);
    assert.match(String(at(res.body, 'message')), pattern);
  }
  const unknown = await postForm(`${s.base}/v3/other.example/messages`, basic, s.auth);
  assert.equal(unknown.status, 404);
  assert.equal(at(unknown.body, 'message'), 'Domain not found: other.example');
});

test('multipart message with attachment, tags, variables and headers is stored as sent', async (t) => {
  const s = await setup(t);
  const form = new FormData();
  for (const [k, v] of basic) form.append(k, v);
  form.append('to', 'Bob <bob@example.com>');
  form.append('o:tag', 'orders');
  form.append('v:parley_message_id', 'msg_123');
  form.append('h:Reply-To', 'help@example.com');
  form.append('attachment', new Blob([Buffer.from('%PDF')], { type: 'application/pdf' }), 'invoice.pdf');
  const res = await fetch(`${s.base}/v3/${DOMAIN}/messages`, { method: 'POST', body: form, headers: s.auth });
  assert.equal(res.status, 200);
  const listed = await get(`${s.base}/_sandbox/messages`);
  const m = at(listed.body, 'messages', 0) as Record<string, unknown>;
  assert.deepEqual(m.to, ['alice@example.com', 'Bob <bob@example.com>']);
  assert.deepEqual(m.tags, ['orders']);
  assert.deepEqual(m.user_variables, { parley_message_id: 'msg_123' });
  assert.deepEqual(m.headers, { 'Reply-To': 'help@example.com' });
  assert.deepEqual(at(m, 'attachments', 0), { field: 'attachment', fileName: 'invoice.pdf', contentType: 'application/pdf', size: 4 });
});

test('event webhooks are signed in the body and follow the webhook ids', async (t) => {
  const s = await setup(t);
  for (const [id, path] of [
    ['delivered', '/delivered'],
    ['permanent_fail', '/failed'],
    ['accepted', '/accepted'],
  ]) {
    const created = await postForm(
      `${s.base}/v3/domains/${DOMAIN}/webhooks`,
      [
        ['id', String(id)],
        ['url', `${s.receiver.url}${String(path)}`],
      ],
      s.auth,
    );
    assert.equal(created.status, 200);
    assert.equal(at(created.body, 'message'), 'Webhook has been created');
  }
  const dup = await postForm(
    `${s.base}/v3/domains/${DOMAIN}/webhooks`,
    [
      ['id', 'delivered'],
      ['url', `${s.receiver.url}/x`],
    ],
    s.auth,
  );
  assert.equal(dup.status, 400);
  const badId = await postForm(
    `${s.base}/v3/domains/${DOMAIN}/webhooks`,
    [
      ['id', 'bounced'],
      ['url', `${s.receiver.url}/x`],
    ],
    s.auth,
  );
  assert.equal(badId.status, 400);
  const hooks = await get(`${s.base}/v3/domains/${DOMAIN}/webhooks`, s.auth);
  assert.deepEqual(at(hooks.body, 'webhooks', 'delivered', 'urls'), [`${s.receiver.url}/delivered`]);

  const sent = await postForm(`${s.base}/v3/${DOMAIN}/messages`, [...basic, ['v:ref', 'r1'], ['o:tag', 'welcome']], s.auth);
  const id = String(at(sent.body, 'id'));
  await post(`${s.base}/_sandbox/settle`);
  const accepted = s.receiver.received.find((r) => r.path === '/accepted');
  assert.ok(accepted, 'accepted event sent by itself');

  const delivered = await post(`${s.base}/_sandbox/messages/${encodeURIComponent(id)}/events`, { event: 'delivered' });
  assert.equal(at(delivered.body, 'results', 0, 'webhooks', 0, 'status'), 200);
  const r = s.receiver.received.find((x) => x.path === '/delivered');
  assert.ok(r);
  const body = JSON.parse(r.text) as Record<string, unknown>;
  assert.ok(signatureOk(at(body, 'signature') as Record<string, unknown>), 'hex HMAC-SHA256(signing key, timestamp + token)');
  assert.equal(String(at(body, 'signature', 'token')).length, 50);
  assert.equal(at(body, 'event-data', 'event'), 'delivered');
  assert.equal(at(body, 'event-data', 'recipient'), 'alice@example.com');
  assert.equal(at(body, 'event-data', 'message', 'headers', 'message-id'), id.slice(1, -1));
  assert.deepEqual(at(body, 'event-data', 'user-variables'), { ref: 'r1' });
  assert.deepEqual(at(body, 'event-data', 'tags'), ['welcome']);
  assert.equal(at(body, 'event-data', 'delivery-status', 'code'), 250);

  const failed = await post(`${s.base}/_sandbox/messages/${encodeURIComponent(id)}/events`, { event: 'failed', severity: 'permanent' });
  const f = JSON.parse(s.receiver.received.filter((x) => x.path === '/failed').at(-1)?.text ?? '{}') as unknown;
  assert.equal(at(f, 'event-data', 'event'), 'failed');
  assert.equal(at(f, 'event-data', 'severity'), 'permanent');
  assert.equal(at(failed.body, 'results', 0, 'webhooks', 0, 'status'), 200);
  const temp = await post(`${s.base}/_sandbox/messages/${encodeURIComponent(id)}/events`, { event: 'failed', severity: 'temporary' });
  assert.match(String(at(temp.body, 'results', 0, 'webhook_skipped')), /temporary_fail/);
});

test('routes forward inbound mail with a body signature; stop() ends the evaluation', async (t) => {
  const s = await setup(t);
  const r1 = await postForm(
    `${s.base}/v3/routes`,
    [
      ['priority', '1'],
      ['expression', 'match_recipient(".*@mg.example.test")'],
      ['action', `forward("${s.receiver.url}/inbound")`],
      ['action', 'stop()'],
    ],
    s.auth,
  );
  assert.equal(at(r1.body, 'message'), 'Route has been created');
  await postForm(
    `${s.base}/v3/routes`,
    [
      ['priority', '5'],
      ['expression', 'catch_all()'],
      ['action', `forward("${s.receiver.url}/catchall")`],
    ],
    s.auth,
  );
  const match = await get(`${s.base}/v3/routes/match?address=support@mg.example.test`, s.auth);
  assert.equal(at(match.body, 'route', 'priority'), 1);

  const res = await post(`${s.base}/_sandbox/inbound`, {
    recipient: 'support@mg.example.test',
    from: 'Alice <alice@example.com>',
    subject: 'Help',
    text: 'My order is late\n> old quote\n-- \nAlice',
  });
  assert.equal(at(res.body, 'forwards', 0, 'webhook', 'status'), 200);
  assert.equal((at(res.body, 'forwards') as unknown[]).length, 1, 'stop() prevents the catch-all route');
  const r = s.receiver.received.at(-1);
  assert.ok(r && r.path === '/inbound');
  const fields = new URLSearchParams(r.text);
  assert.equal(fields.get('recipient'), 'support@mg.example.test');
  assert.equal(fields.get('sender'), 'alice@example.com');
  assert.equal(fields.get('subject'), 'Help');
  assert.equal(fields.get('stripped-text'), 'My order is late');
  assert.equal(fields.get('stripped-signature'), 'Alice');
  assert.ok(signatureOk({ timestamp: fields.get('timestamp'), token: fields.get('token'), signature: fields.get('signature') }));
  assert.ok((JSON.parse(fields.get('message-headers') ?? '[]') as string[][]).some(([k]) => k === 'Subject'));

  await post(`${s.base}/_sandbox/inbound`, {
    recipient: 'sales@mg.example.test',
    from: 'bob@example.com',
    subject: 'Photo',
    text: 'see attached',
    attachments: [{ file_name: 'a.txt', content_type: 'text/plain', content_base64: Buffer.from('hello file').toString('base64') }],
  });
  const withFile = s.receiver.received.at(-1);
  assert.ok(withFile);
  assert.match(String(withFile.headers['content-type']), /^multipart\/form-data/);
  const parsed = await new Response(Uint8Array.from(withFile.rawBody), { headers: { 'content-type': String(withFile.headers['content-type']) } }).formData();
  assert.equal(parsed.get('attachment-count'), '1');
  const file = parsed.get('attachment-1');
  assert.ok(file instanceof Blob);
  assert.equal(await file.text(), 'hello file');

  const other = await post(`${s.base}/_sandbox/inbound`, { recipient: 'x@elsewhere.test', from: 'bob@example.com', text: 'hi' });
  assert.equal(s.receiver.received.at(-1)?.path, '/catchall');
  assert.equal(at(other.body, 'routed'), true);
});

test('faults: 429 and 5xx', async (t) => {
  const s = await setup(t);
  await post(`${s.base}/_sandbox/faults`, { kind: 'rate_limit', endpoint: 'messages' });
  const limited = await postForm(`${s.base}/v3/${DOMAIN}/messages`, basic, s.auth);
  assert.equal(limited.status, 429);
  await post(`${s.base}/_sandbox/faults`, { kind: 'server_error', status: 503 });
  assert.equal((await postForm(`${s.base}/v3/${DOMAIN}/messages`, basic, s.auth)).status, 503);
  assert.equal((await postForm(`${s.base}/v3/${DOMAIN}/messages`, basic, s.auth)).status, 200);
});

test('the account signing key is read from /v5 unless the account keeps it back; webhooks read back in either form', async (t) => {
  const { base, auth } = await setup(t);
  const key = await get(`${base}/v5/accounts/http_signing_key`, auth);
  assert.equal(key.status, 200);
  assert.deepEqual(key.body, { http_signing_key: SIGNING });
  assert.equal((await get(`${base}/v5/accounts/http_signing_key`)).status, 401);

  const created = await postForm(
    `${base}/v3/domains/${DOMAIN}/webhooks`,
    [
      ['id', 'delivered'],
      ['url', 'https://a.example/hook'],
      ['url', 'https://b.example/hook'],
    ],
    auth,
  );
  assert.equal(created.status, 200, created.text);
  assert.deepEqual((await get(`${base}/v3/domains/${DOMAIN}/webhooks/delivered`, auth)).body, {
    webhook: { urls: ['https://a.example/hook', 'https://b.example/hook'] },
  });
  const patch = (body: unknown) =>
    fetch(`${base}/_sandbox/account`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal((await patch({ webhook_read_form: 'url', signing_key_readable: false })).status, 200);
  assert.deepEqual((await get(`${base}/v3/domains/${DOMAIN}/webhooks/delivered`, auth)).body, { webhook: { url: 'https://a.example/hook' } });
  assert.deepEqual(at((await get(`${base}/v3/domains/${DOMAIN}/webhooks`, auth)).body, 'webhooks', 'delivered'), { url: 'https://a.example/hook' });
  const refused = await get(`${base}/v5/accounts/http_signing_key`, auth);
  assert.equal(refused.status, 403);
});
