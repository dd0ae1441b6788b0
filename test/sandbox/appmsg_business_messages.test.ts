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
  // A sender id made before type 206 closed: the plain text cases below use it.
  await post(`${base}/_sandbox/services`, { service_id: SERVICE, callback_url: `${receiver.url}/cb`, callback_secret: SECRET, plain_text_allowed: true });
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

const VIDEO = { '#action': 'https://e.com/v.mp4', '#thumbnail': 'https://e.com/t.jpg' };
const CARD = { title: 'Spring sale', imageUrl: 'https://e.com/a.png', primaryButton: { label: 'Buy', actionUrl: 'https://e.com/b' } };
const OLD_ITEM = { '#txt': 'Spring sale', '#img': 'https://e.com/a.png', '#caption': 'Buy', '#action': 'https://e.com/b' };

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
    [text({ type: 7, label: 'promotion', message: { '#img': 'https://example.com/a.png', '#tracking_data': 't' } }), 6],
    [text({ dest: '420777000999' }), 9],
    [text({ dest: '12' }), 27],
    [text({ label: 'spam' }), 18],
    [text({ ttl: 10 }), 20],
    [text({ ttl: 1209601 }), 20],
    [
      text({ type: 220, message: { '#fileName': 'a-very-long-file-name-indeed.pdf', '#action': 'https://e.com/f', '#tracking_data': 't' }, file_type: 'pdf' }),
      29,
    ],
    [text({ type: 230, label: 'promotion', message: { ...VIDEO, '#tracking_data': 't' }, file_size: 1000, duration: 601 }), 32],
    // A video's URL goes in #action (230-232; 233 adds #media) and its thumbnail is required.
    [
      text({
        type: 230,
        label: 'promotion',
        message: { '#media': 'https://e.com/v.mp4', '#thumbnail': 'https://e.com/t.jpg', '#tracking_data': 't' },
        file_size: 1000,
        duration: 60,
      }),
      6,
    ],
    [text({ type: 230, label: 'promotion', message: { '#action': 'https://e.com/v.mp4', '#tracking_data': 't' }, file_size: 1000, duration: 60 }), 6],
    [
      text({ type: 233, label: 'promotion', message: { ...VIDEO, '#txt': 'Watch', '#caption': 'Go', '#tracking_data': 't' }, file_size: 1000, duration: 60 }),
      6,
    ],
    // Promotional types need the promotional label.
    [text({ type: 230, message: { ...VIDEO, '#tracking_data': 't' }, file_size: 1000, duration: 60 }), 18],
    [text({ type: 207, message: { '#img': 'https://e.com/a.png', '#tracking_data': 't' } }), 18],
    [text({ type: 801, message: { '#txt': 'Pick', '#tracking_data': 't' }, survey: { options: [{ title: 'only' }] } }), 40],
    [text({ type: 901, label: 'promotion', message: { '#txt': 'Offers', '#tracking_data': 't' }, carousel: { items: [{}] } }), 41],
    [text({ type: 901, label: 'promotion', message: { '#tracking_data': 't' }, carousel: { items: [CARD, CARD] } }), 6],
    [text({ type: 901, label: 'promotion', message: { '#txt': 'Offers', '#tracking_data': 't' }, carousel: { items: [CARD, { ...CARD, title: 'x' }] } }), 41],
    [
      text({
        type: 901,
        label: 'promotion',
        message: { '#txt': 'Offers', '#tracking_data': 't' },
        carousel: { items: [CARD, { ...CARD, primaryButton: { label: 'Buy it right now', actionUrl: 'https://e.com/b' } }] },
      }),
      41,
    ],
    // The old card shape (#txt, #img, #caption, #action per item) is not a carousel card.
    [
      text({
        type: 901,
        label: 'promotion',
        message: { '#txt': 'Offers', '#tracking_data': 't' },
        carousel: { items: [OLD_ITEM, OLD_ITEM] },
      }),
      41,
    ],
    [text({ type: 1701, templateId: 'nope', templateLang: 'en', message: {} }), 38],
    [text({ type: 1701, templateId: 'otp', templateLang: 'en', templateParams: {}, message: {} }), 39],
  ];
  for (const [body, status] of cases) {
    const res = await post(s.url, body);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, status, JSON.stringify(body).slice(0, 90));
  }
  assert.equal((await post(s.url, text({ type: 1701, templateId: 'otp', templateLang: 'en', templateParams: { code: '1234' }, message: {} }))).body.status, 0);
  // A template request as a public integration sends it: no message object.
  assert.equal(
    (await post(s.url, { ...text({ type: 1702, templateId: 'otp', templateLang: 'en', templateParams: { code: '1234' } }), message: undefined })).body.status,
    0,
  );
  for (const ok of [
    text({ type: 230, label: 'promotion', message: { ...VIDEO, '#tracking_data': 't' }, file_size: 1000, duration: 60 }),
    text({
      type: 233,
      label: 'promotion',
      message: { ...VIDEO, '#media': 'https://e.com/v.mp4', '#action': 'https://e.com/shop', '#txt': 'Watch', '#caption': 'Shop', '#tracking_data': 't' },
      file_size: 1000,
      duration: 60,
    }),
    text({
      type: 901,
      label: 'promotion',
      message: { '#txt': 'Offers', '#tracking_data': 't' },
      carousel: { items: [CARD, { ...CARD, secondaryButton: { label: 'More info', actionUrl: 'https://e.com/i' } }] },
    }),
  ]) {
    assert.equal((await post(s.url, ok)).body.status, 0, JSON.stringify(ok).slice(0, 90));
  }
  // A sender id made after 2026-04-01 cannot send plain text as 206.
  await call('PATCH', `${s.base}/_sandbox/services/${SERVICE}`, { plain_text_allowed: false });
  assert.equal((await post(s.url, text())).body.status, 5);
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
  assert.deepEqual(at(block.body, 'payload'), {
    message_status: 5,
    message_time: at(block.body, 'payload', 'message_time'),
    phone_number: DEST,
    service_id: SERVICE,
  });
  assert.equal((await post(s.url, text())).body.status, 8);
  await post(`${s.base}/_sandbox/services/${SERVICE}/users/${DEST}/unblock`);
  assert.equal((await post(s.url, text())).body.status, 0);
});

test('session messages need a user reply and are capped; callbacks have the shape public integrations show', async (t) => {
  const s = await setup(t);
  const session = text({ type: 306, message: { '#txt': 'How can we help?', '#tracking_data': 'sess' } });
  assert.equal((await post(s.url, session)).body.status, 21, 'no user reply yet');
  const sent = await post(s.url, text());
  const replyRes = await post(`${s.base}/_sandbox/services/${SERVICE}/users/${DEST}/reply`, { text: 'Hi!' });
  assert.equal(at(replyRes.body, 'webhook', 'status'), 200);
  assert.deepEqual(at(replyRes.body, 'payload', 'message'), { text: 'Hi!', tracking_data: 'order-1' });
  assert.equal(at(replyRes.body, 'payload', 'phone_number'), DEST);
  assert.match(String(at(replyRes.body, 'payload', 'message_token')), /^\d{19}$/);
  assert.notEqual(at(replyRes.body, 'payload', 'message_token'), sent.body.message_token, "the reply's own token");
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
  const seen = at(status.body, 'payload') as Record<string, unknown>;
  assert.deepEqual(seen, {
    message_token: sent.body.message_token,
    message_status: 1,
    message_time: seen.message_time,
    phone_number: DEST,
    service_id: SERVICE,
  });
  assert.equal(typeof seen.message_time, 'number');
  for (const [name, code] of [
    ['delivered', 0],
    ['expired', 2],
  ] as const) {
    assert.equal(
      at((await post(`${s.base}/_sandbox/messages/${String(sent.body.message_token)}/status`, { status: name })).body, 'payload', 'message_status'),
      code,
    );
  }
  await post(`${s.base}/_sandbox/faults`, { kind: 'server_error', status: 502 });
  assert.equal((await post(s.url, text())).status, 502);
});
