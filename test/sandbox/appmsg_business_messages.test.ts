import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createAppmsgBusinessMessagesStandIn } from '../../sandbox/appmsg_business_messages/server.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { at, call, post } from './helpers/http.js';

const SERVICE = 1234;
const DEST = '420777123456';
const SECRET = 'cb-secret';

interface Setup {
  base: string;
  url: string;
  receiver: Receiver;
}

async function setup(t: TestContext): Promise<Setup> {
  const standIn = createAppmsgBusinessMessagesStandIn();
  const base = await standIn.listen(0);
  const receiver = await startReceiver(() => ({ status: 200 }));
  t.after(async () => {
    await standIn.close();
    await receiver.close();
  });
  await post(`${base}/_sandbox/services`, { service_id: SERVICE, callback_url: `${receiver.url}/cb`, callback_secret: SECRET });
  await post(`${base}/_sandbox/users`, { phone: DEST });
  return { base, url: `${base}/appmsgsrvc/1/send_message`, receiver };
}

const text = (extra: Record<string, unknown> = {}) => ({
  service_id: SERVICE,
  dest: DEST,
  seq: 1700000000000,
  label: 'transaction',
  type: 206,
  ttl: 3600,
  message: { '#txt': 'Your code is 1234', '#tracking_data': 'order-1' },
  ...extra,
});

test('send_message: success shape and the public status codes', async (t) => {
  const s = await setup(t);
  const ok = await post(s.url, text());
  assert.equal(ok.status, 200);
  assert.equal(ok.body.status, 0);
  assert.equal(ok.body.seq, 1700000000000);
  assert.match(String(ok.body.message_token), /^\d{19}$/);
  assert.equal(ok.body.session_id, undefined);

  await post(`${s.base}/_sandbox/users`, { phone: '420777000999', registered: false });
  await post(`${s.base}/_sandbox/templates`, { template_id: 'otp', lang: 'en', params: ['code'] });
  const cases: Array<[Record<string, unknown>, number]> = [
    [text({ service_id: 'abc' }), 2],
    [text({ service_id: 9999 }), 11],
    [text({ message: { '#txt': 'x'.repeat(1001), '#tracking_data': 't' } }), 3],
    [text({ type: 12345 }), 5],
    [text({ message: { '#txt': 'no tracking' } }), 6],
    [text({ type: 7, message: { '#img': 'https://example.com/a.png', '#tracking_data': 't' } }), 6],
    [text({ dest: '420777000999' }), 9],
    [text({ dest: '12' }), 27],
    [text({ label: 'spam' }), 18],
    [text({ ttl: 10 }), 20],
    [text({ ttl: 1209601 }), 20],
    [
      text({ type: 220, message: { '#fileName': 'a-very-long-file-name-indeed.pdf', '#action': 'https://e.com/f', '#tracking_data': 't' }, file_type: 'pdf' }),
      29,
    ],
    [text({ type: 230, message: { '#media': 'https://e.com/v.mp4', '#tracking_data': 't' }, file_size: 1000, duration: 601 }), 32],
    [text({ type: 801, message: { '#txt': 'Pick', '#tracking_data': 't' }, survey: { options: [{ title: 'only' }] } }), 40],
    [text({ type: 901, message: { '#tracking_data': 't' }, carousel: { items: [{}] } }), 41],
    [text({ type: 1701, templateId: 'nope', templateLang: 'en', message: {} }), 38],
    [text({ type: 1701, templateId: 'otp', templateLang: 'en', templateParams: {}, message: {} }), 39],
  ];
  for (const [body, status] of cases) {
    const res = await post(s.url, body);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, status, JSON.stringify(body).slice(0, 90));
  }
  assert.equal((await post(s.url, text({ type: 1701, templateId: 'otp', templateLang: 'en', templateParams: { code: '1234' }, message: {} }))).body.status, 0);
  const notJson = await fetch(s.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{bad' });
  assert.equal(((await notJson.json()) as Record<string, unknown>).status, 3);
  assert.equal((await post(`${s.base}/othersrvc/1/send_message`, text())).status, 404);
});

test('IP whitelist, blocked users and service flags', async (t) => {
  const s = await setup(t);
  await call('PATCH', `${s.base}/_sandbox/services/${SERVICE}`, { allowed_ips: ['10.0.0.1'] });
  assert.equal((await post(s.url, text())).body.status, 11);
  await call('PATCH', `${s.base}/_sandbox/services/${SERVICE}`, { allowed_ips: ['127.0.0.1', '::1', '::ffff:127.0.0.1'], billing_permitted: false });
  assert.equal((await post(s.url, text())).body.status, 13);
  await call('PATCH', `${s.base}/_sandbox/services/${SERVICE}`, { billing_permitted: true });
  const block = await post(`${s.base}/_sandbox/services/${SERVICE}/users/${DEST}/block`);
  assert.equal(at(block.body, 'payload', 'event'), 'unsubscribe');
  assert.equal((await post(s.url, text())).body.status, 8);
  await post(`${s.base}/_sandbox/services/${SERVICE}/users/${DEST}/unblock`);
  assert.equal((await post(s.url, text())).body.status, 0);
});

test('session messages need a user reply and are capped; callbacks use the sandbox contract', async (t) => {
  const s = await setup(t);
  const session = text({ type: 306, message: { '#txt': 'How can we help?', '#tracking_data': 'sess' } });
  assert.equal((await post(s.url, session)).body.status, 21, 'no user reply yet');
  const sent = await post(s.url, text());
  const replyRes = await post(`${s.base}/_sandbox/services/${SERVICE}/users/${DEST}/reply`, { text: 'Hi!' });
  assert.equal(at(replyRes.body, 'webhook', 'status'), 200);
  assert.equal(at(replyRes.body, 'payload', 'tracking_data'), 'order-1');
  assert.equal(at(replyRes.body, 'payload', 'message_token'), sent.body.message_token);
  const r = s.receiver.received.at(-1);
  assert.ok(r);
  assert.equal(r.headers['x-sandbox-signature'], createHmac('sha256', SECRET).update(r.rawBody).digest('hex'));
  for (let i = 0; i < 10; i++) {
    const res = await post(s.url, session);
    assert.equal(res.body.status, 0);
    assert.match(String(res.body.session_id), /^\d+$/);
  }
  assert.equal((await post(s.url, session)).body.status, 21, 'session cap reached');

  const status = await post(`${s.base}/_sandbox/messages/${String(sent.body.message_token)}/status`, { status: 'seen' });
  assert.deepEqual(
    { event: at(status.body, 'payload', 'event'), status: at(status.body, 'payload', 'status'), token: at(status.body, 'payload', 'message_token') },
    { event: 'status', status: 'seen', token: sent.body.message_token },
  );
  await post(`${s.base}/_sandbox/faults`, { kind: 'server_error', status: 502 });
  assert.equal((await post(s.url, text())).status, 502);
});
