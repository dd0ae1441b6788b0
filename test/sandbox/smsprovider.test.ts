import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';
import { startReceiver, type Received, type Receiver } from './helpers/receiver.js';
import { verifyHs256 } from './helpers/jwt.js';
import { at, call, get, post } from './helpers/http.js';

const KEY = 'live_sandboxkey0000000000001';
const SIGNING = 'signing-key-123';
const JWT_HEADER = 'smsprovider-signature-jwt';

interface Setup {
  base: string;
  receiver: Receiver;
  auth: Record<string, string>;
}

async function setup(t: TestContext): Promise<Setup> {
  const standIn = createSmsproviderStandIn({ accessKey: KEY, signingKey: SIGNING });
  const base = await standIn.listen(0);
  const receiver = await startReceiver(() => ({ status: 200, body: 'OK' }));
  t.after(async () => {
    await standIn.close();
    await receiver.close();
  });
  return { base, receiver, auth: { authorization: `AccessKey ${KEY}` } };
}

const sha256 = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');

function checkJwt(r: Received, receiverUrl: string, body: Buffer | null): Record<string, unknown> {
  const token = r.headers[JWT_HEADER];
  assert.equal(typeof token, 'string');
  const verified = verifyHs256(String(token), SIGNING);
  assert.ok(verified, 'JWT signed with the signing key');
  assert.equal(verifyHs256(String(token), 'wrong-key'), null);
  const claims = verified.claims;
  assert.equal(claims.url_hash, sha256(`${receiverUrl}${r.url}`));
  assert.equal(Number(claims.exp) - Number(claims.nbf), 60);
  assert.equal(typeof claims.jti, 'string');
  if (body === null) assert.equal(claims.payload_hash, undefined);
  else assert.equal(claims.payload_hash, sha256(body));
  return claims;
}

test('access key authentication', async (t) => {
  const s = await setup(t);
  const variants: Array<Record<string, string>> = [{}, { authorization: `Bearer ${KEY}` }, { authorization: 'AccessKey nope' }];
  for (const headers of variants) {
    const res = await post(`${s.base}/messages`, { originator: 'Shop', recipients: ['31612345678'], body: 'x' }, headers);
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { errors: [{ code: 2, description: 'Request not allowed (incorrect access_key)', parameter: 'access_key' }] });
  }
});

test('send: 201 message object, data coding and parts, validation errors', async (t) => {
  const s = await setup(t);
  const res = await post(
    `${s.base}/messages`,
    { originator: '18005551212', recipients: ['+1 (888) 555-1515', 31612345678], body: 'Simple Message ☺', reference: '10' },
    s.auth,
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.match(String(res.body.id), /^[0-9a-f]{32}$/);
  assert.equal(res.body.href, `${s.base}/messages/${String(res.body.id)}`);
  assert.equal(res.body.direction, 'mt');
  assert.equal(res.body.datacoding, 'plain', 'plain is the default data coding');
  assert.equal(res.body.reference, '10');
  assert.equal(at(res.body, 'recipients', 'totalCount'), 2);
  assert.equal(at(res.body, 'recipients', 'items', 0, 'recipient'), 18885551515);
  assert.equal(at(res.body, 'recipients', 'items', 0, 'status'), 'sent');
  assert.match(String(at(res.body, 'recipients', 'items', 0, 'statusDatetime')), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);

  const long = await post(`${s.base}/messages`, { originator: 'Shop', recipients: '420777000111', body: 'a'.repeat(161) }, s.auth);
  assert.equal(at(long.body, 'datacoding'), 'plain');
  assert.equal(at(long.body, 'recipients', 'items', 0, 'messagePartCount'), 2);
  const uni = await post(`${s.base}/messages`, { originator: 'Shop', recipients: ['420777000111'], body: 'ř'.repeat(71), datacoding: 'auto' }, s.auth);
  assert.equal(at(uni.body, 'datacoding'), 'unicode', 'auto picks unicode for non-GSM text');
  assert.equal(at(uni.body, 'recipients', 'items', 0, 'messagePartCount'), 2);

  const form = new URLSearchParams({ originator: 'Shop', recipients: '420777000111,420777000222', body: 'form post' });
  const viaForm = await fetch(`${s.base}/messages`, { method: 'POST', body: form, headers: s.auth });
  const formBody = (await viaForm.json()) as unknown;
  assert.equal(viaForm.status, 201);
  assert.equal(at(formBody, 'recipients', 'totalCount'), 2);

  const cases: Array<[Record<string, unknown>, number, string]> = [
    [{ recipients: ['31612345678'], body: 'x' }, 9, 'originator'],
    [{ originator: 'TooLongSender', recipients: ['31612345678'], body: 'x' }, 10, 'originator'],
    [{ originator: 'Shop', recipients: ['31612345678'] }, 9, 'body'],
    [{ originator: 'Shop', body: 'x' }, 9, 'recipients'],
    [{ originator: 'Shop', recipients: ['12'], body: 'x' }, 9, 'recipients'],
    [{ originator: 'Shop', recipients: ['31612345678'], body: 'x'.repeat(1378) }, 10, 'body'],
  ];
  for (const [body, code, parameter] of cases) {
    const bad = await post(`${s.base}/messages`, body, s.auth);
    assert.equal(bad.status, 422, JSON.stringify(body).slice(0, 60));
    assert.equal(at(bad.body, 'errors', 0, 'code'), code);
    assert.equal(at(bad.body, 'errors', 0, 'parameter'), parameter);
  }
});

test('status reports are signed GETs with the documented query; the message shows the status', async (t) => {
  const s = await setup(t);
  const sent = await post(
    `${s.base}/messages`,
    { originator: 'Shop', recipients: ['18885551515'], body: 'Hi', reference: '26', reportUrl: `${s.receiver.url}/status?channel=abc` },
    s.auth,
  );
  const id = String(sent.body.id);
  const res = await post(`${s.base}/_sandbox/messages/${id}/status`, { status: 'delivered' });
  assert.equal(at(res.body, 'reports', 0, 'webhook', 'status'), 200);
  const r = s.receiver.received.at(-1);
  assert.ok(r);
  assert.equal(r.method, 'GET');
  assert.equal(r.path, '/status');
  assert.equal(r.query.get('channel'), 'abc');
  assert.equal(r.query.get('id'), id);
  assert.equal(r.query.get('reference'), '26');
  assert.equal(r.query.get('recipient'), '18885551515');
  assert.equal(r.query.get('status'), 'delivered');
  assert.equal(r.query.get('price[currency]'), 'EUR');
  // The time's `+` is written as it is: decoded, it reads as a space; the URL is hashed as sent.
  assert.match(r.url, /&statusDatetime=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00(&|$)/);
  assert.match(r.query.get('statusDatetime') ?? '', / 00:00$/);
  const claims = checkJwt(r, s.receiver.url, null);
  assert.equal(claims.iss, 'Smsprovider');
  // Deprecated scheme: base64 HMAC-SHA256 over timestamp, sorted query and the body's SHA-256.
  const ts = String(r.headers['smsprovider-request-timestamp']);
  const params = [...r.query.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const legacy = createHmac('sha256', SIGNING)
    .update(Buffer.concat([Buffer.from(`${ts}\n${new URLSearchParams(params).toString()}\n`), createHash('sha256').update('').digest()]))
    .digest('base64');
  assert.equal(r.headers['smsprovider-signature'], legacy);

  const fetched = await get(`${s.base}/messages/${id}`, s.auth);
  assert.equal(at(fetched.body, 'recipients', 'items', 0, 'status'), 'delivered');
  assert.equal(at(fetched.body, 'recipients', 'totalDeliveredCount'), 1);
  const list = await get(`${s.base}/messages?status=delivered`, s.auth);
  assert.equal(at(list.body, 'totalCount'), 1);
  assert.equal((await call('DELETE', `${s.base}/messages/${id}`, undefined, s.auth)).status, 204);
  const gone = await get(`${s.base}/messages/${id}`, s.auth);
  assert.equal(gone.status, 404);
  assert.equal(at(gone.body, 'errors', 0, 'code'), 20);
});

test('inbound SMS is a signed urlencoded POST to the number receive URL', async (t) => {
  const s = await setup(t);
  await call('PUT', `${s.base}/_sandbox/numbers/+18005551212`, { receive_url: `${s.receiver.url}/inbound` });
  const res = await post(`${s.base}/_sandbox/inbound`, { originator: '+420777123456', recipient: '18005551212', body: 'Dobrý den' });
  assert.equal(at(res.body, 'webhook', 'status'), 200);
  assert.equal(at(res.body, 'webhook', 'body'), 'OK');
  const r = s.receiver.received.at(-1);
  assert.ok(r);
  assert.equal(r.method, 'POST');
  assert.match(String(r.headers['content-type']), /application\/x-www-form-urlencoded/);
  const fields = new URLSearchParams(r.text);
  assert.equal(fields.get('originator'), '420777123456');
  assert.equal(fields.get('recipient'), '18005551212');
  assert.equal(fields.get('body'), 'Dobrý den');
  assert.match(fields.get('createdDatetime') ?? '', /\+00:00$/);
  checkJwt(r, s.receiver.url, r.rawBody);
  const unknown = await post(`${s.base}/_sandbox/inbound`, { originator: '1234567', recipient: '999999', body: 'x' });
  assert.equal(unknown.status, 404);
});

test('STOP opt-out makes later messages fail with statusErrorCode 103; test keys send nothing', async (t) => {
  const s = await setup(t);
  await call('PATCH', `${s.base}/_sandbox/account`, { status_report_url: `${s.receiver.url}/status` });
  await post(`${s.base}/_sandbox/recipients/420777000111/stop`);
  await post(`${s.base}/messages`, { originator: 'Shop', recipients: ['420777000111'], body: 'promo', reference: 'p1' }, s.auth);
  await post(`${s.base}/_sandbox/settle`);
  const r = s.receiver.received.at(-1);
  assert.ok(r);
  assert.equal(r.query.get('status'), 'delivery_failed');
  assert.equal(r.query.get('statusErrorCode'), '103');

  const key = await post(`${s.base}/_sandbox/access_keys`, { mode: 'test' });
  const testMsg = await post(
    `${s.base}/messages`,
    { originator: 'Shop', recipients: ['420777000222'], body: 'test' },
    { authorization: `AccessKey ${String(key.body.access_key)}` },
  );
  assert.equal(testMsg.status, 201);
  const before = s.receiver.received.length;
  const outcome = await post(`${s.base}/_sandbox/messages/${String(testMsg.body.id)}/status`, { status: 'delivered' });
  assert.equal(at(outcome.body, 'reports', 0, 'webhook'), null);
  assert.equal(s.receiver.received.length, before);
});

test('balance, faults and failed deliveries', async (t) => {
  const s = await setup(t);
  await call('PATCH', `${s.base}/_sandbox/account`, { balance: 0.1 });
  assert.equal((await post(`${s.base}/messages`, { originator: 'Shop', recipients: ['420777000111'], body: 'x' }, s.auth)).status, 201);
  const broke = await post(`${s.base}/messages`, { originator: 'Shop', recipients: ['420777000111'], body: 'x' }, s.auth);
  assert.equal(at(broke.body, 'errors', 0, 'code'), 25);
  await call('PATCH', `${s.base}/_sandbox/account`, { balance: null });
  await post(`${s.base}/_sandbox/faults`, { kind: 'server_error', endpoint: 'messages' });
  const down = await post(`${s.base}/messages`, { originator: 'Shop', recipients: ['420777000111'], body: 'x' }, s.auth);
  assert.equal(down.status, 500);
  assert.equal(at(down.body, 'errors', 0, 'code'), 99);
  await post(`${s.base}/_sandbox/faults`, { kind: 'timeout', endpoint: 'messages', delay_ms: 200 });
  const started = Date.now();
  assert.equal((await post(`${s.base}/messages`, { originator: 'Shop', recipients: ['420777000111'], body: 'x' }, s.auth)).status, 201);
  assert.ok(Date.now() - started >= 190);

  s.receiver.respond(() => ({ status: 503 }));
  const msg = await post(
    `${s.base}/messages`,
    { originator: 'Shop', recipients: ['420777000111'], body: 'x', reference: 'r7', reportUrl: `${s.receiver.url}/s` },
    s.auth,
  );
  const failed = await post(`${s.base}/_sandbox/messages/${String(msg.body.id)}/status`, { status: 'delivery_failed', status_error_code: 7 });
  assert.equal(at(failed.body, 'reports', 0, 'webhook', 'status'), 503);
  assert.equal(s.receiver.received.at(-1)?.query.get('statusErrorCode'), '7');
});

test('as the public reference says: reports only with a reference, test messages unreadable, every validation error at once, Retry-After, short-code inbound', async (t) => {
  const s = await setup(t);
  await call('PATCH', `${s.base}/_sandbox/account`, { status_report_url: `${s.receiver.url}/status` });
  const unreferenced = await post(`${s.base}/messages`, { originator: 'Shop', recipients: ['420777000111'], body: 'x' }, s.auth);
  const before = s.receiver.received.length;
  const outcome = await post(`${s.base}/_sandbox/messages/${String(unreferenced.body.id)}/status`, { status: 'delivered' });
  assert.equal(at(outcome.body, 'reports', 0, 'webhook'), null);
  assert.equal(at(outcome.body, 'reports', 0, 'webhook_skipped'), 'the message has no reference');
  assert.equal(s.receiver.received.length, before);

  const key = await post(`${s.base}/_sandbox/access_keys`, { mode: 'test' });
  const testAuth = { authorization: `AccessKey ${String(key.body.access_key)}` };
  const testMsg = await post(`${s.base}/messages`, { originator: 'Shop', recipients: ['420777000222'], body: 'test', reference: 't1' }, testAuth);
  assert.equal(testMsg.status, 201);
  for (const method of ['GET', 'DELETE']) {
    const gone = await call(method, `${s.base}/messages/${String(testMsg.body.id)}`, undefined, testAuth);
    assert.equal(gone.status, 404, method);
    assert.equal(at(gone.body, 'errors', 0, 'code'), 20);
  }
  const listed = await get(`${s.base}/messages?limit=50`, s.auth);
  assert.equal(
    (listed.body.items as Array<{ id: string }>).some((m) => m.id === testMsg.body.id),
    false,
  );

  const bad = await post(`${s.base}/messages`, { originator: 'TooLongSender', recipients: ['12'], body: '' }, s.auth);
  assert.equal(bad.status, 422);
  assert.deepEqual(
    (bad.body.errors as Array<{ code: number; parameter: string }>).map((e) => [e.code, e.parameter]),
    [
      [9, 'recipients'],
      [10, 'originator'],
      [9, 'body'],
    ],
  );

  await post(`${s.base}/_sandbox/faults`, { kind: 'rate_limit', endpoint: 'messages', retry_after: 7 });
  const limited = await fetch(`${s.base}/messages`, {
    method: 'POST',
    headers: { ...s.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ originator: 'Shop', recipients: ['420777000111'], body: 'x' }),
  });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '7');

  await call('PUT', `${s.base}/_sandbox/numbers/3000`, { receive_url: `${s.receiver.url}/inbound` });
  const short = await post(`${s.base}/_sandbox/inbound`, { originator: '420777123456', recipient: '3000', body: 'JOIN', form: 'shortcode' });
  assert.equal(at(short.body, 'webhook', 'status'), 200);
  const fields = new URLSearchParams(s.receiver.received.at(-1)?.text ?? '');
  assert.equal(fields.get('shortcode'), '3000');
  assert.equal(fields.get('message'), 'JOIN');
  assert.equal(fields.get('originator'), '420777123456');
  assert.match(fields.get('receive_datetime') ?? '', /^\d{14}$/);
});

test('the message list filters on the server: recipient, originator, direction, status, from and until; newest first, paged', async (t) => {
  const s = await setup(t);
  const send = async (originator: string, to: string) => {
    const res = await post(`${s.base}/messages`, { originator, recipients: [to], body: 'x', reference: `${originator}-${to}` }, s.auth);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { id: string; createdDatetime: string };
  };
  const first = await send('Shop', '31612345678');
  await send('Shop', '31600000002');
  await send('Other', '31612345678');
  const list = async (query: string) => {
    const res = await get(`${s.base}/messages?${query}`, s.auth);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { totalCount: number; count: number; items: { reference: string }[] };
  };
  assert.deepEqual(
    (await list('recipient=%2B31%20612%20345678')).items.map((m) => m.reference),
    ['Other-31612345678', 'Shop-31612345678'],
  );
  assert.deepEqual(
    (await list('originator=Shop&limit=1')).items.map((m) => m.reference),
    ['Shop-31600000002'],
  );
  assert.deepEqual(
    (await list('originator=Shop&limit=1&offset=1')).items.map((m) => m.reference),
    ['Shop-31612345678'],
  );
  assert.equal((await list('direction=mo')).totalCount, 0);
  assert.equal((await list('status=sent&direction=mt')).totalCount, 3);
  assert.equal((await list(`from=${encodeURIComponent(first.createdDatetime)}`)).totalCount, 3, 'from is inclusive');
  const later = new Date(Date.parse(first.createdDatetime) + 3_600_000).toISOString();
  assert.equal((await list(`from=${encodeURIComponent(later)}`)).totalCount, 0);
  assert.equal((await list(`until=${encodeURIComponent(later)}`)).totalCount, 3);
  const bad = await get(`${s.base}/messages?from=yesterday`, s.auth);
  assert.equal(bad.status, 422);
  assert.equal((bad.body as { errors: { code: number; parameter: string }[] }).errors[0]?.parameter, 'from');
});

test('the JWT may be signed with HS384 or HS512; status reports may come unsigned while inbound SMS stay signed', async (t) => {
  const s = await setup(t);
  const sent = await post(
    `${s.base}/messages`,
    { originator: 'Shop', recipients: ['18885551515'], body: 'Hi', reference: '27', reportUrl: `${s.receiver.url}/status` },
    s.auth,
  );
  const id = String(sent.body.id);
  for (const [alg, hash] of [
    ['HS384', 'sha384'],
    ['HS512', 'sha512'],
  ] as const) {
    assert.equal((await call('PATCH', `${s.base}/_sandbox/account`, { jwt_algorithm: alg })).status, 200);
    await post(`${s.base}/_sandbox/messages/${id}/status`, { status: 'buffered' });
    const token = String(s.receiver.received.at(-1)?.headers[JWT_HEADER]);
    const [h, p, sig] = token.split('.') as [string, string, string];
    assert.equal(JSON.parse(Buffer.from(h, 'base64url').toString()).alg, alg);
    assert.equal(createHmac(hash, SIGNING).update(`${h}.${p}`).digest('base64url'), sig);
  }
  assert.equal((await call('PATCH', `${s.base}/_sandbox/account`, { jwt_algorithm: 'none' })).status, 400);

  assert.equal((await call('PATCH', `${s.base}/_sandbox/account`, { sign_status_reports: false })).status, 200);
  await post(`${s.base}/_sandbox/messages/${id}/status`, { status: 'delivered' });
  const report = s.receiver.received.at(-1);
  assert.equal(report?.headers[JWT_HEADER], undefined);
  assert.equal(report?.headers['smsprovider-signature'], undefined);
  await call('PUT', `${s.base}/_sandbox/numbers/+18005551212`, { receive_url: `${s.receiver.url}/inbound` });
  await post(`${s.base}/_sandbox/inbound`, { originator: '+420777123456', recipient: '18005551212', body: 'hi' });
  assert.equal(typeof s.receiver.received.at(-1)?.headers[JWT_HEADER], 'string');
});
