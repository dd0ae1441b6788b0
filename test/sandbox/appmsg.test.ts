import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createAppmsgStandIn } from '../../sandbox/appmsg/server.js';
import { startReceiver, type Received, type Receiver } from './helpers/receiver.js';
import { at, post } from './helpers/http.js';

const AUTH = 'x-appmsg-auth-token';
const SIG = 'x-appmsg-content-signature';

interface Setup {
  base: string;
  token: string;
  botId: string;
  receiver: Receiver;
}

async function setup(t: TestContext, webhook = true): Promise<Setup> {
  const standIn = createAppmsgStandIn();
  const base = await standIn.listen(0);
  const receiver = await startReceiver(() => ({ status: 200 }));
  t.after(async () => {
    await standIn.close();
    await receiver.close();
  });
  const bot = await post(`${base}/_sandbox/bots`, { name: 'Coffee' });
  const s = { base, token: String(bot.body.token), botId: String(at(bot.body, 'bot', 'id')), receiver };
  if (webhook) {
    const set = await api(s, 'set_webhook', { url: `${receiver.url}/cb` });
    assert.equal(at(set.body, 'status'), 0, JSON.stringify(set.body));
  }
  return s;
}

function api(s: { base: string; token: string }, endpoint: string, body: Record<string, unknown>, token: string | null = s.token) {
  return post(`${s.base}/pa/${endpoint}`, body, token === null ? {} : { [AUTH]: token });
}

async function rawApi(s: Setup, endpoint: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${s.base}/pa/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [AUTH]: s.token },
    body: JSON.stringify(body),
  });
  return res.text();
}

async function newUser(s: Setup, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await post(`${s.base}/_sandbox/bots/${encodeURIComponent(s.botId)}/users`, { name: 'Jana', ...extra });
  return String(at(res.body, 'user', 'id'));
}

function act(s: Setup, user: string, action: string, body: Record<string, unknown> = {}) {
  return post(`${s.base}/_sandbox/bots/${encodeURIComponent(s.botId)}/users/${encodeURIComponent(user)}/${action}`, body);
}

function signatureOk(r: Received, token: string): boolean {
  return r.headers[SIG] === createHmac('sha256', token).update(r.rawBody).digest('hex');
}

const text = (receiver: string, extra: Record<string, unknown> = {}) => ({ receiver, sender: { name: 'Coffee' }, type: 'text', text: 'Hello', ...extra });

test('auth token header, HTTP 200 with status codes', async (t) => {
  const s = await setup(t, false);
  const missing = await api(s, 'get_account_info', {}, null);
  assert.equal(missing.status, 200);
  assert.equal(at(missing.body, 'status'), 2);
  assert.equal(at(missing.body, 'status_message'), 'missing_auth_token');
  assert.equal(at((await api(s, 'get_account_info', {}, 'wrong')).body, 'status'), 2);
  const info = await api(s, 'get_account_info', {});
  assert.equal(at(info.body, 'status'), 0);
  assert.equal(at(info.body, 'name'), 'Coffee');
  assert.equal(at(info.body, 'webhook'), '');
  const noHook = await api(s, 'send_message', text('x'));
  assert.equal(at(noHook.body, 'status'), 10, 'webhookNotSet');
});

test('set_webhook needs a 200 from the signed verification callback', async (t) => {
  const s = await setup(t, false);
  s.receiver.respond(() => ({ status: 500 }));
  const failed = await api(s, 'set_webhook', { url: `${s.receiver.url}/cb` });
  assert.equal(at(failed.body, 'status'), 1);
  const check = s.receiver.received[0];
  assert.ok(check);
  assert.equal(JSON.parse(check.text).event, 'webhook');
  assert.ok(signatureOk(check, s.token));
  s.receiver.respond(() => ({ status: 200 }));
  const ok = await api(s, 'set_webhook', { url: `${s.receiver.url}/cb`, event_types: ['delivered', 'seen'] });
  assert.deepEqual(ok.body, { status: 0, status_message: 'ok', event_types: ['delivered', 'seen'] });
});

test('send_message: subscription rules, 64-bit tokens, validation', async (t) => {
  const s = await setup(t);
  assert.equal(at((await api(s, 'send_message', text('nobody'))).body, 'status'), 5);
  const user = await newUser(s);
  assert.equal(at((await api(s, 'send_message', text(user))).body, 'status'), 6, 'not subscribed yet');
  const said = await act(s, user, 'messages', { text: 'hi' });
  assert.equal(at(said.body, 'webhook', 'status'), 200);
  const raw = await rawApi(s, 'send_message', text(user, { tracking_data: 'order-7' }));
  assert.match(raw, /"message_token":\d{19}[,}]/, 'token is a bare 64-bit number');
  const body = JSON.parse(raw) as Record<string, unknown>;
  assert.equal(body.status, 0);
  assert.equal(body.chat_hostname, 'SN-CHAT-05_');

  const cases: Array<[Record<string, unknown>, number]> = [
    [{ receiver: user, type: 'text', text: 'x' }, 4],
    [text(user, { sender: { name: 'n'.repeat(29) } }), 3],
    [text(user, { text: 't'.repeat(7001) }), 3],
    [text(user, { type: 'hologram' }), 3],
    [text(user, { type: 'video', media: 'https://example.com/v.mp4' }), 4],
    [text(user, { type: 'rich_media', rich_media: { Type: 'rich_media', Buttons: [{ ActionType: 'reply', ActionBody: 'x' }] } }), 13],
    [text(user, { keyboard: { Type: 'keyboard', Buttons: [{ ActionType: 'teleport', ActionBody: 'x' }] } }), 3],
    [text(user, { tracking_data: 'd'.repeat(4001) }), 3],
  ];
  for (const [msg, status] of cases) {
    const res = await api(s, 'send_message', msg);
    assert.equal(at(res.body, 'status'), status, JSON.stringify(msg).slice(0, 80));
  }
  const list = await fetch(`${s.base}/_sandbox/bots/${encodeURIComponent(s.botId)}/messages?receiver=${encodeURIComponent(user)}`);
  const listed = (await list.json()) as unknown;
  assert.equal(at(listed, 'messages', 0, 'body', 'tracking_data'), 'order-7');
});

test('callbacks are signed; message carries tracking_data; receipts reference the message token', async (t) => {
  const s = await setup(t);
  const user = await newUser(s);
  await act(s, user, 'messages', { text: 'hi' });
  const raw = await rawApi(s, 'send_message', text(user, { tracking_data: 'conv-1' }));
  const token = /"message_token":(\d+)/.exec(raw)?.[1];
  assert.ok(token);
  const reply = await act(s, user, 'messages', { text: 'Ahoj 👋' });
  assert.equal(at(reply.body, 'event', 'message', 'tracking_data'), 'conv-1');
  const last = s.receiver.received.at(-1);
  assert.ok(last && signatureOk(last, s.token), 'HMAC-SHA256(token, raw body)');
  const event = JSON.parse(last.text) as unknown;
  assert.equal(at(event, 'event'), 'message');
  assert.equal(at(event, 'sender', 'id'), user);
  assert.equal(at(event, 'message', 'text'), 'Ahoj 👋');

  const delivered = await act(s, user, 'delivered', { message_token: token });
  assert.equal(at(delivered.body, 'callbacks', 0, 'webhook', 'status'), 200);
  const receipt = s.receiver.received.at(-1);
  assert.ok(receipt && signatureOk(receipt, s.token));
  assert.match(receipt.text, new RegExp(`"message_token":${token}[,}]`));
  assert.match(receipt.text, /"event":"delivered"/);
  const seen = await act(s, user, 'seen');
  assert.equal((at(seen.body, 'callbacks') as unknown[]).length, 1);
});

test('event_types filter callbacks; subscribe, unsubscribe, conversation_started with a welcome message', async (t) => {
  const s = await setup(t);
  await api(s, 'set_webhook', { url: `${s.receiver.url}/cb`, event_types: ['delivered'] });
  const user = await newUser(s);
  const started = await act(s, user, 'conversation_started', { context: 'promo-42' });
  assert.equal(at(started.body, 'webhook'), null);
  await api(s, 'set_webhook', { url: `${s.receiver.url}/cb` });
  s.receiver.respond(() => ({
    status: 200,
    body: JSON.stringify({ sender: { name: 'Coffee' }, type: 'text', text: 'Welcome!' }),
    headers: { 'content-type': 'application/json' },
  }));
  const again = await act(s, user, 'conversation_started', { context: 'promo-42' });
  assert.equal(at(again.body, 'event', 'context'), 'promo-42');
  assert.equal(at(again.body, 'event', 'subscribed'), false);
  assert.equal(typeof at(again.body, 'welcome_message_token'), 'number');
  s.receiver.respond(() => ({ status: 200 }));
  const sub = await act(s, user, 'subscribe');
  assert.equal(at(sub.body, 'event', 'user', 'id'), user);
  assert.equal(at((await api(s, 'send_message', text(user))).body, 'status'), 0);
  const unsub = await act(s, user, 'unsubscribe');
  assert.equal(at(unsub.body, 'event', 'user_id'), user);
  assert.equal(at((await api(s, 'send_message', text(user))).body, 'status'), 6);
});

test('keyboard reply buttons come back as text messages with the ActionBody', async (t) => {
  const s = await setup(t);
  const user = await newUser(s);
  await act(s, user, 'subscribe');
  const raw = await rawApi(
    s,
    'send_message',
    text(user, {
      keyboard: {
        Type: 'keyboard',
        Buttons: [
          { Columns: 3, Rows: 1, ActionType: 'reply', ActionBody: 'SIZE_L', Text: 'Large' },
          { Columns: 3, Rows: 1, ActionType: 'share-phone', ActionBody: 'phone', Text: 'Phone' },
        ],
      },
    }),
  );
  const token = /"message_token":(\d+)/.exec(raw)?.[1];
  const press = await act(s, user, 'button', { message_token: token, index: 0 });
  assert.deepEqual(at(press.body, 'event', 'message'), { type: 'text', text: 'SIZE_L' });
  const phone = await act(s, user, 'button', { message_token: token, index: 1 });
  assert.equal(at(phone.body, 'event', 'message', 'type'), 'contact');
  const pic = await act(s, user, 'media', { type: 'picture' });
  const url = String(at(pic.body, 'event', 'message', 'media'));
  const file = await fetch(url);
  assert.equal(file.headers.get('content-type'), 'image/png');
});

test('limits: 100 unanswered messages per hour, user details twice per 12 h; faults', async (t) => {
  const s = await setup(t);
  const user = await newUser(s);
  await act(s, user, 'messages', { text: 'hi' });
  for (let i = 0; i < 100; i++) assert.equal(at((await api(s, 'send_message', text(user))).body, 'status'), 0);
  assert.equal(at((await api(s, 'send_message', text(user))).body, 'status'), 12);
  await act(s, user, 'messages', { text: 'still here' });
  assert.equal(at((await api(s, 'send_message', text(user))).body, 'status'), 0, 'a reply resets the count');

  const d1 = await api(s, 'get_user_details', { id: user });
  assert.equal(at(d1.body, 'user', 'name'), 'Jana');
  assert.equal(typeof at(d1.body, 'user', 'appmsg_version'), 'string');
  await api(s, 'get_user_details', { id: user });
  assert.equal(at((await api(s, 'get_user_details', { id: user })).body, 'status'), 12);
  await post(`${s.base}/_sandbox/clock/advance`, { ms: 12 * 3600 * 1000 + 1 });
  assert.equal(at((await api(s, 'get_user_details', { id: user })).body, 'status'), 0);
  const online = await api(s, 'get_online', { ids: [user] });
  assert.equal(at(online.body, 'users', 0, 'online_status_message'), 'online');

  await post(`${s.base}/_sandbox/faults`, { kind: 'server_error', endpoint: 'send_message', status: 503 });
  assert.equal((await api(s, 'send_message', text(user))).status, 503);
  await post(`${s.base}/_sandbox/faults`, { kind: 'rate_limit', endpoint: 'send_message' });
  assert.equal(at((await api(s, 'send_message', text(user))).body, 'status'), 12);
});

test('the platform takes "keyboard": null (the official SDK sends it with every message); an open-url tap also sends its URL as text', async (t) => {
  const s = await setup(t);
  const user = await newUser(s);
  await act(s, user, 'subscribe');
  assert.equal(at((await api(s, 'send_message', text(user, { keyboard: null }))).body, 'status'), 0);
  const raw = await rawApi(
    s,
    'send_message',
    text(user, { keyboard: { Type: 'keyboard', Buttons: [{ ActionType: 'open-url', ActionBody: 'https://example.com/menu', Text: 'Menu' }] } }),
  );
  const token = /"message_token":(\d+)/.exec(raw)?.[1];
  const press = await act(s, user, 'button', { message_token: token, index: 0 });
  assert.deepEqual(at(press.body, 'event', 'message'), { type: 'text', text: 'https://example.com/menu' });
});
