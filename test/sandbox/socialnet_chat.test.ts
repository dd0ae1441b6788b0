import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createSocialnetChatStandIn } from '../../sandbox/socialnet_chat/server.js';
import { startReceiver, type Received, type Receiver } from './helpers/receiver.js';
import { at, call, get, post } from './helpers/http.js';

const VERSION = 'v25.0';
const VERIFY_TOKEN = 'verify-me';

function validSignature(raw: Buffer, header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'));
  const given = Buffer.from(header.slice('sha256='.length));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Receiver that passes the verification handshake and accepts events. */
function serviceLike(verifyToken = VERIFY_TOKEN) {
  return (r: Received) => {
    if (r.method === 'GET') {
      return r.query.get('hub.mode') === 'subscribe' && r.query.get('hub.verify_token') === verifyToken
        ? { status: 200, body: r.query.get('hub.challenge') ?? '' }
        : { status: 403, body: 'Forbidden' };
    }
    return { status: 200, body: 'EVENT_RECEIVED' };
  };
}

interface Setup {
  base: string;
  api: string;
  receiver: Receiver;
  secret: string;
  appId: string;
  pageId: string;
  pageToken: string;
  userToken: string;
  standIn: ReturnType<typeof createSocialnetChatStandIn>;
}

async function setup(t: TestContext, opts: { subscribe?: boolean; fetchAttachmentUrls?: boolean } = {}): Promise<Setup> {
  const standIn = createSocialnetChatStandIn({ fetchAttachmentUrls: opts.fetchAttachmentUrls ?? true });
  const base = await standIn.listen(0);
  const receiver = await startReceiver(serviceLike());
  t.after(async () => {
    await standIn.close();
    await receiver.close();
  });
  const appInfo = await get(`${base}/_sandbox/app`);
  const sub = await call('PUT', `${base}/_sandbox/subscription`, { callback_url: `${receiver.url}/webhook`, verify_token: VERIFY_TOKEN });
  assert.equal(sub.status, 200, JSON.stringify(sub.body));
  const page = await post(`${base}/_sandbox/pages`, { name: 'Coffee Shop', category: 'Restaurant', subscribe: opts.subscribe ?? true });
  assert.equal(page.status, 201);
  return {
    base,
    api: `${base}/${VERSION}`,
    receiver,
    secret: String(appInfo.body.secret),
    appId: String(appInfo.body.id),
    pageId: String(at(page.body, 'page', 'id')),
    pageToken: String(page.body.access_token),
    userToken: String(at(page.body, 'admin', 'user_access_token')),
    standIn,
  };
}

async function newUser(s: Setup, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await post(`${s.base}/_sandbox/pages/${s.pageId}/users`, { first_name: 'Jana', last_name: 'Nováková', gender: 'female', timezone: 2, ...extra });
  assert.equal(res.status, 201);
  return String(at(res.body, 'user', 'psid'));
}

async function userSays(s: Setup, psid: string, text: string) {
  return post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/messages`, { text });
}

function send(s: Setup, body: Record<string, unknown>, token = s.pageToken) {
  return post(`${s.api}/me/messages?access_token=${encodeURIComponent(token)}`, body);
}

function posts(r: Receiver): Received[] {
  return r.received.filter((x) => x.method === 'POST');
}

test('subscription handshake echoes hub.challenge and rejects a wrong verify token', async (t) => {
  const standIn = createSocialnetChatStandIn();
  const base = await standIn.listen(0);
  const receiver = await startReceiver(serviceLike('expected-token'));
  t.after(async () => {
    await standIn.close();
    await receiver.close();
  });
  const bad = await call('PUT', `${base}/_sandbox/subscription`, { callback_url: `${receiver.url}/wh`, verify_token: 'wrong' });
  assert.equal(bad.status, 422);
  assert.match(String(at(bad.body, 'error', 'message')), /#2200/);
  const handshake = receiver.received[0];
  assert.ok(handshake);
  assert.equal(handshake.method, 'GET');
  assert.equal(handshake.query.get('hub.mode'), 'subscribe');
  assert.equal(handshake.query.get('hub.verify_token'), 'wrong');
  assert.match(handshake.query.get('hub.challenge') ?? '', /^\d+$/);
  assert.equal(at(await get(`${base}/_sandbox/app`), 'body', 'subscription'), null);

  // The platform's own API: POST /{app-id}/subscriptions with the app token.
  const appInfo = await get(`${base}/_sandbox/app`);
  const appToken = String(appInfo.body.app_access_token);
  const ok = await post(`${base}/${VERSION}/${String(appInfo.body.id)}/subscriptions?access_token=${encodeURIComponent(appToken)}`, {
    object: 'page',
    callback_url: `${receiver.url}/wh`,
    verify_token: 'expected-token',
    fields: 'messages,messaging_postbacks',
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.deepEqual(ok.body, { success: true });
  const listed = await get(`${base}/${VERSION}/${String(appInfo.body.id)}/subscriptions?access_token=${encodeURIComponent(appToken)}`);
  assert.deepEqual(at(listed.body, 'data', 0, 'fields', 1, 'name'), 'messaging_postbacks');
});

test('user message webhook is signed with the app secret over the raw, unicode-escaped body', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s);
  const text = 'Dobrý den 👋 https://example.com/a';
  const res = await userSays(s, psid, text);
  assert.equal(res.status, 200);
  assert.equal(at(res.body, 'webhook', 'status'), 200);
  const hook = posts(s.receiver).at(-1);
  assert.ok(hook);
  assert.ok(validSignature(hook.rawBody, hook.headers['x-hub-signature-256'], s.secret), 'valid sha256 signature');
  assert.ok(!validSignature(hook.rawBody, hook.headers['x-hub-signature-256'], 'other-secret'));
  const sha1 = `sha1=${createHmac('sha1', s.secret).update(hook.rawBody).digest('hex')}`;
  assert.equal(hook.headers['x-hub-signature'], sha1);
  assert.ok(
    [...hook.rawBody].every((b) => b < 0x80),
    'body is pure ASCII',
  );
  assert.ok(hook.text.includes('\\/'), 'slashes escaped');
  const body = JSON.parse(hook.text) as unknown;
  assert.equal(at(body, 'object'), 'page');
  assert.equal(at(body, 'entry', 0, 'id'), s.pageId);
  assert.equal(at(body, 'entry', 0, 'messaging', 0, 'sender', 'id'), psid);
  assert.equal(at(body, 'entry', 0, 'messaging', 0, 'recipient', 'id'), s.pageId);
  assert.equal(at(body, 'entry', 0, 'messaging', 0, 'message', 'text'), text);
  assert.match(String(at(body, 'entry', 0, 'messaging', 0, 'message', 'mid')), /^m_/);
  // Re-signing the re-serialized JSON would not match: the signature is over the exact bytes.
  const reserialized = Buffer.from(JSON.stringify(body));
  assert.ok(!validSignature(reserialized, hook.headers['x-hub-signature-256'], s.secret));
});

test('control calls report the status the service answered', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s);
  s.receiver.respond((r) => (r.method === 'POST' ? { status: 500, body: 'boom' } : { status: 200 }));
  const res = await userSays(s, psid, 'hello');
  assert.equal(at(res.body, 'webhook', 'status'), 500);
  assert.equal(at(res.body, 'webhook', 'ok'), false);
  const id = Number(at(res.body, 'webhook', 'delivery_id'));
  s.receiver.respond(() => ({ status: 200 }));
  const again = await post(`${s.base}/_sandbox/webhooks/${id}/redeliver`);
  assert.equal(at(again.body, 'webhook', 'status'), 200);
  const [first, second] = posts(s.receiver).slice(-2);
  assert.ok(first && second);
  assert.equal(first.text, second.text);
  assert.equal(first.headers['x-hub-signature-256'], second.headers['x-hub-signature-256']);
});

test('events are only delivered for fields the page subscribed the app to', async (t) => {
  const s = await setup(t, { subscribe: false });
  const psid = await newUser(s);
  const before = await userSays(s, psid, 'anyone?');
  assert.equal(at(before.body, 'webhook'), null);
  assert.match(String(at(before.body, 'webhook_skipped')), /subscribed/);
  const sub = await post(`${s.api}/${s.pageId}/subscribed_apps?access_token=${s.pageToken}&subscribed_fields=messages,message_echoes`);
  assert.deepEqual(sub.body, { success: true });
  const listed = await get(`${s.api}/me/subscribed_apps?access_token=${s.pageToken}`);
  assert.deepEqual(at(listed.body, 'data', 0, 'subscribed_fields'), ['messages', 'message_echoes']);
  const after = await userSays(s, psid, 'hello?');
  assert.equal(at(after.body, 'webhook', 'status'), 200);
  const deliveries = await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/deliver`);
  assert.match(String(at(deliveries.body, 'webhook_skipped')), /message_deliveries/);
  const bad = await post(`${s.api}/${s.pageId}/subscribed_apps?access_token=${s.pageToken}&subscribed_fields=nope`);
  assert.equal(at(bad.body, 'error', 'code'), 100);
});

test('send API: reply inside the window, echo with metadata, listing', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s);
  await userSays(s, psid, 'hi');
  const res = await send(s, { recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'Hello!', metadata: 'corr-1' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.recipient_id, psid);
  const mid = String(res.body.message_id);
  assert.match(mid, /^m_/);
  await s.standIn.settle();
  const echo = posts(s.receiver)
    .map((r) => JSON.parse(r.text) as unknown)
    .find((b) => at(b, 'entry', 0, 'messaging', 0, 'message', 'is_echo') === true);
  assert.ok(echo, 'echo delivered');
  assert.equal(at(echo, 'entry', 0, 'messaging', 0, 'message', 'mid'), mid);
  assert.equal(at(echo, 'entry', 0, 'messaging', 0, 'message', 'metadata'), 'corr-1');
  assert.equal(at(echo, 'entry', 0, 'messaging', 0, 'message', 'app_id'), Number(s.appId));
  assert.equal(at(echo, 'entry', 0, 'messaging', 0, 'sender', 'id'), s.pageId);
  const listed = await get(`${s.base}/_sandbox/pages/${s.pageId}/messages?psid=${psid}`);
  assert.equal(at(listed.body, 'messages', 0, 'mid'), mid);
  assert.equal(at(listed.body, 'messages', 0, 'message', 'text'), 'Hello!');
  assert.equal(at(listed.body, 'messages', 0, 'messaging_type'), 'RESPONSE');
  const reqs = await get(`${s.base}/_sandbox/requests?path_contains=/messages`);
  assert.equal(at(reqs.body, 'requests', 0, 'status'), 200);
});

test('send API accepts form fields carrying JSON strings', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s);
  await userSays(s, psid, 'hi');
  const form = new URLSearchParams({
    recipient: JSON.stringify({ id: psid }),
    messaging_type: 'UPDATE',
    message: JSON.stringify({ text: 'via form' }),
    access_token: s.pageToken,
  });
  const res = await fetch(`${s.api}/me/messages`, { method: 'POST', body: form });
  const body = (await res.json()) as unknown;
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(at(body, 'recipient_id'), psid);
});

test('24-hour window and HUMAN_AGENT tag (7 days) give code 10 / 2018278 outside', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s);
  const never = await send(s, { recipient: { id: psid }, messaging_type: 'UPDATE', message: { text: 'cold' } });
  assert.equal(at(never.body, 'error', 'code'), 10);
  await userSays(s, psid, 'hi');
  await post(`${s.base}/_sandbox/clock/advance`, { ms: 25 * 3600 * 1000 });
  const late = await send(s, { recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'late' } });
  assert.equal(late.status, 400);
  assert.equal(at(late.body, 'error', 'code'), 10);
  assert.equal(at(late.body, 'error', 'error_subcode'), 2018278);
  assert.equal(at(late.body, 'error', 'type'), 'OAuthException');
  assert.equal(typeof at(late.body, 'error', 'sntrace_id'), 'string');
  const agent = await send(s, { recipient: { id: psid }, messaging_type: 'MESSAGE_TAG', tag: 'HUMAN_AGENT', message: { text: 'agent' } });
  assert.equal(agent.status, 200);
  const retired = await send(s, { recipient: { id: psid }, messaging_type: 'MESSAGE_TAG', tag: 'NON_PROMOTIONAL_SUBSCRIPTION', message: { text: 'x' } });
  assert.equal(at(retired.body, 'error', 'code'), 100);
  await post(`${s.base}/_sandbox/clock/advance`, { ms: 7 * 24 * 3600 * 1000 });
  const tooLate = await send(s, { recipient: { id: psid }, messaging_type: 'MESSAGE_TAG', tag: 'HUMAN_AGENT', message: { text: 'agent' } });
  assert.equal(at(tooLate.body, 'error', 'error_subcode'), 2018278);
  const update = await send(s, { recipient: { id: psid }, messaging_type: 'MESSAGE_TAG', tag: 'ACCOUNT_UPDATE', message: { text: 'your account' } });
  assert.equal(update.status, 200);
});

test('send API validation follows the platform limits', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s);
  await userSays(s, psid, 'hi');
  const r = { id: psid };
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ recipient: r, messaging_type: 'RESPONSE', message: { text: 'x'.repeat(2001) } }, /message\[text\].*2000/],
    [{ recipient: r, message: { text: 'no type' } }, /messaging_type/],
    [{ recipient: r, messaging_type: 'RESPONSE', message: {} }, /cannot be empty/],
    [{ messaging_type: 'RESPONSE', message: { text: 'x' } }, /recipient/],
    [{ recipient: r, messaging_type: 'RESPONSE', message: { text: 'x', metadata: 'm'.repeat(1001) } }, /metadata/],
    [
      {
        recipient: r,
        messaging_type: 'RESPONSE',
        message: { text: 'q', quick_replies: Array.from({ length: 14 }, (_, i) => ({ content_type: 'text', title: `t${i}`, payload: `p${i}` })) },
      },
      /at most 13/,
    ],
    [{ recipient: r, messaging_type: 'RESPONSE', message: { text: 'q', quick_replies: [{ content_type: 'location' }] } }, /deprecated/],
    [
      {
        recipient: r,
        messaging_type: 'RESPONSE',
        message: { attachment: { type: 'template', payload: { template_type: 'button', text: 'Pick', buttons: [] } } },
      },
      /buttons/,
    ],
    [
      {
        recipient: r,
        messaging_type: 'RESPONSE',
        message: { attachment: { type: 'template', payload: { template_type: 'generic', elements: Array.from({ length: 11 }, () => ({ title: 'a' })) } } },
      },
      /at most 10/,
    ],
    [{ recipient: r, messaging_type: 'RESPONSE', sender_action: 'typing_on', message: { text: 'x' } }, /sender_action/],
    [{ recipient: r, sender_action: 'dance' }, /sender_action/],
  ];
  for (const [body, pattern] of cases) {
    const res = await send(s, body);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    assert.equal(at(res.body, 'error', 'code'), 100);
    assert.match(String(at(res.body, 'error', 'message')), pattern);
  }
  const limitOk = await send(s, { recipient: r, messaging_type: 'RESPONSE', message: { text: 'x'.repeat(2000) } });
  assert.equal(limitOk.status, 200);
});

test('unknown recipient, blocked user, sender actions', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s);
  await userSays(s, psid, 'hi');
  const unknown = await send(s, { recipient: { id: '999' }, messaging_type: 'RESPONSE', message: { text: 'x' } });
  assert.equal(at(unknown.body, 'error', 'code'), 100);
  assert.equal(at(unknown.body, 'error', 'error_subcode'), 2018001);
  const typing = await send(s, { recipient: { id: psid }, sender_action: 'typing_on' });
  assert.deepEqual(typing.body, { recipient_id: psid });
  await send(s, { recipient: { id: psid }, sender_action: 'mark_seen' });
  const actions = await get(`${s.base}/_sandbox/pages/${s.pageId}/sender_actions?psid=${psid}`);
  assert.deepEqual(
    (at(actions.body, 'sender_actions') as Array<{ action: string }>).map((a) => a.action),
    ['typing_on', 'mark_seen'],
  );
  await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/block`);
  const blocked = await send(s, { recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'x' } });
  assert.equal(at(blocked.body, 'error', 'code'), 551);
  assert.equal(at(blocked.body, 'error', 'error_subcode'), 1545041);
});

test('quick reply and postback taps carry the payloads the page sent', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s, { phone_number: '+420777123456' });
  await userSays(s, psid, 'hi');
  const qr = await send(s, {
    recipient: { id: psid },
    messaging_type: 'RESPONSE',
    message: {
      text: 'Pick one',
      quick_replies: [{ content_type: 'text', title: 'Red', payload: 'COLOR_RED' }, { content_type: 'user_phone_number' }],
    },
  });
  const tap = await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/quick_reply`, { message_id: qr.body.message_id, index: 0 });
  assert.equal(at(tap.body, 'event', 'message', 'text'), 'Red');
  assert.equal(at(tap.body, 'event', 'message', 'quick_reply', 'payload'), 'COLOR_RED');
  const phoneTap = await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/quick_reply`, { message_id: qr.body.message_id, index: 1 });
  assert.equal(at(phoneTap.body, 'event', 'message', 'quick_reply', 'payload'), '+420777123456');

  const tpl = await send(s, {
    recipient: { id: psid },
    messaging_type: 'RESPONSE',
    message: {
      attachment: {
        type: 'template',
        payload: {
          template_type: 'button',
          text: 'What next?',
          buttons: [
            { type: 'web_url', url: 'https://example.com', title: 'Site' },
            { type: 'postback', title: 'Talk to us', payload: 'TALK' },
          ],
        },
      },
    },
  });
  assert.equal(tpl.status, 200, JSON.stringify(tpl.body));
  const press = await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/postback`, { message_id: tpl.body.message_id, button_index: 1 });
  assert.equal(at(press.body, 'webhook', 'status'), 200);
  const hook = JSON.parse(posts(s.receiver).at(-1)?.text ?? '{}') as unknown;
  assert.equal(at(hook, 'entry', 0, 'messaging', 0, 'postback', 'payload'), 'TALK');
  assert.equal(at(hook, 'entry', 0, 'messaging', 0, 'postback', 'title'), 'Talk to us');
  const wrong = await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/postback`, { message_id: tpl.body.message_id, button_index: 0 });
  assert.equal(wrong.status, 400);
});

test('profile API: get_started, persistent_menu, whitelisted_domains, and the Get Started press', async (t) => {
  const s = await setup(t);
  const url = `${s.api}/me/socialnet_chat_profile?access_token=${s.pageToken}`;
  const menu = [{ locale: 'default', composer_input_disabled: false, call_to_actions: [{ type: 'postback', title: 'Restart', payload: 'RESTART' }] }];
  const noStart = await post(url, { persistent_menu: menu });
  assert.equal(at(noStart.body, 'error', 'code'), 100);
  const psid = await newUser(s);
  const early = await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/get_started`);
  assert.equal(early.status, 409);
  const set = await post(url, { get_started: { payload: 'GET_STARTED' }, persistent_menu: menu, whitelisted_domains: ['https://shop.example.com'] });
  assert.deepEqual(set.body, { result: 'success' });
  const badDomain = await post(url, { whitelisted_domains: ['not a url'] });
  assert.equal(at(badDomain.body, 'error', 'code'), 100);
  const nothing = await post(url, { foo: 1 });
  assert.match(String(at(nothing.body, 'error', 'message')), /Requires one of the params/);
  const read = await get(`${url}&fields=get_started,whitelisted_domains`);
  assert.deepEqual(read.body, { data: [{ get_started: { payload: 'GET_STARTED' }, whitelisted_domains: ['https://shop.example.com'] }] });

  const press = await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/get_started`);
  assert.equal(at(press.body, 'event', 'postback', 'payload'), 'GET_STARTED');
  assert.equal(at(press.body, 'webhook', 'status'), 200);
  const item = await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/menu`, { index: 0 });
  assert.equal(at(item.body, 'event', 'postback', 'payload'), 'RESTART');

  const delStart = await call('DELETE', url, { fields: ['get_started'] });
  assert.equal(at(delStart.body, 'error', 'code'), 100);
  const del = await call('DELETE', url, { fields: ['get_started', 'persistent_menu'] });
  assert.deepEqual(del.body, { result: 'success' });
  const after = await get(`${s.base}/_sandbox/pages/${s.pageId}/profile`);
  assert.deepEqual(Object.keys(at(after.body, 'profile') as object), ['whitelisted_domains']);
  assert.equal((at(after.body, 'changes') as unknown[]).length, 2);
});

test('delivery and read watermarks cover the messages sent before them', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s);
  await userSays(s, psid, 'hi');
  const a = await send(s, { recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'one' } });
  const b = await send(s, { recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'two' } });
  const delivered = await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/deliver`);
  assert.deepEqual(at(delivered.body, 'event', 'delivery', 'mids'), [a.body.message_id, b.body.message_id]);
  assert.equal(typeof at(delivered.body, 'event', 'delivery', 'watermark'), 'number');
  const read = await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/read`);
  assert.equal(at(read.body, 'event', 'read', 'watermark'), at(read.body, 'watermark'));
  const listed = await get(`${s.base}/_sandbox/pages/${s.pageId}/messages?psid=${psid}`);
  for (const m of at(listed.body, 'messages') as Array<Record<string, unknown>>) {
    assert.equal(typeof m.delivered_at, 'number');
    assert.equal(typeof m.read_at, 'number');
  }
});

test('opt-ins: send_to_socialnet, checkbox user_ref, phone number acceptance', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s);
  const plugin = await post(`${s.base}/_sandbox/pages/${s.pageId}/optins`, { type: 'send_to_socialnet', psid, ref: 'cart-42' });
  assert.equal(at(plugin.body, 'event', 'optin', 'ref'), 'cart-42');
  assert.equal(at(plugin.body, 'event', 'sender', 'id'), psid);

  const checkbox = await post(`${s.base}/_sandbox/pages/${s.pageId}/optins`, { type: 'checkbox', user_ref: 'UREF-1', ref: 'order-7' });
  assert.equal(at(checkbox.body, 'event', 'sender'), undefined, 'checkbox opt-in has no sender');
  assert.equal(at(checkbox.body, 'event', 'optin', 'user_ref'), 'UREF-1');
  const toRef = await send(s, { recipient: { user_ref: 'UREF-1' }, messaging_type: 'UPDATE', message: { text: 'thanks for ordering' } });
  assert.equal(toRef.status, 200);
  assert.equal(toRef.body.recipient_id, undefined);
  assert.match(String(toRef.body.message_id), /^m_/);

  const byPhone = await send(s, {
    recipient: { phone_number: '+1(212)555-2368', name: { first_name: 'John', last_name: 'Doe' } },
    messaging_type: 'UPDATE',
    message: { text: 'your order shipped' },
  });
  assert.equal(byPhone.status, 200, JSON.stringify(byPhone.body));
  assert.equal(byPhone.body.recipient_id, undefined);
  const pending = await get(`${s.base}/_sandbox/pages/${s.pageId}/phone_requests`);
  assert.equal(at(pending.body, 'phone_requests', 0, 'accepted_by'), null);
  const accept = await post(`${s.base}/_sandbox/pages/${s.pageId}/optins`, { type: 'phone_number', phone_number: '+12125552368' });
  assert.equal(at(accept.body, 'webhook', 'status'), 200);
  const newPsid = String(at(accept.body, 'user', 'psid'));
  assert.equal(at(accept.body, 'event', 'sender', 'id'), newPsid);
  assert.equal(at(accept.body, 'event', 'prior_message', 'source'), 'customer_matching');
  assert.equal(at(accept.body, 'user', 'first_name'), 'John');
  const hook = posts(s.receiver).at(-1);
  assert.ok(hook && validSignature(hook.rawBody, hook.headers['x-hub-signature-256'], s.secret));
  const after = await send(s, { recipient: { id: newPsid }, messaging_type: 'RESPONSE', message: { text: 'welcome' } });
  assert.equal(after.body.recipient_id, newPsid);
  const again = await post(`${s.base}/_sandbox/pages/${s.pageId}/optins`, { type: 'phone_number', phone_number: '+12125552368' });
  assert.equal(again.status, 404);
});

test('page accounts are cursor-paged: 25 by default, paging.next until the last page', async (t) => {
  const s = await setup(t);
  const admin = String(at((await get(`${s.base}/_sandbox/pages/${s.pageId}`)).body, 'page', 'admin_id'));
  for (let i = 0; i < 29; i++) assert.equal((await post(`${s.base}/_sandbox/pages`, { name: `Branch ${i}`, admin_id: admin })).status, 201);
  const ids: string[] = [];
  const sizes: number[] = [];
  let url: string | undefined = `${s.api}/me/accounts?access_token=${s.userToken}`;
  while (url !== undefined) {
    const answer: { status: number; body: any } = await get(url);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const data = answer.body.data as Array<{ id: string }>;
    sizes.push(data.length);
    ids.push(...data.map((p) => p.id));
    url = answer.body.paging?.next as string | undefined;
  }
  assert.deepEqual(sizes, [25, 5]);
  assert.equal(new Set(ids).size, 30);
  assert.ok(ids.includes(s.pageId));
  const small: { body: any } = await get(`${s.api}/me/accounts?limit=10&access_token=${s.userToken}`);
  assert.equal(small.body.data.length, 10);
  const second: { body: any } = await get(`${s.api}/me/accounts?limit=10&after=${small.body.paging.cursors.after}&access_token=${s.userToken}`);
  assert.equal(second.body.data[0].id, ids[10]);
});

test('tokens: short-lived user token exchange, page accounts, debug_token, expiry', async (t) => {
  const s = await setup(t);
  const appInfo = await get(`${s.base}/_sandbox/app`);
  const q = new URLSearchParams({ grant_type: 'sn_exchange_token', client_id: s.appId, client_secret: s.secret, sn_exchange_token: s.userToken });
  const exchanged = await get(`${s.api}/oauth/access_token?${q}`);
  assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
  assert.equal(exchanged.body.token_type, 'bearer');
  assert.ok(Number(exchanged.body.expires_in) > 59 * 24 * 3600);
  const longToken = String(exchanged.body.access_token);
  const badSecret = await get(`${s.api}/oauth/access_token?${new URLSearchParams({ ...Object.fromEntries(q), client_secret: 'nope' })}`);
  assert.equal(at(badSecret.body, 'error', 'code'), 1);

  const accounts = await get(`${s.api}/me/accounts?access_token=${longToken}`);
  assert.equal((accounts.body as any).paging?.next, undefined, 'one page: no next');
  const entry = at(accounts.body, 'data', 0) as Record<string, unknown>;
  assert.equal(entry.id, s.pageId);
  assert.equal(entry.name, 'Coffee Shop');
  const derived = String(entry.access_token);
  const appToken = String(appInfo.body.app_access_token);
  const debug = await get(`${s.api}/debug_token?input_token=${derived}&access_token=${encodeURIComponent(appToken)}`);
  assert.equal(at(debug.body, 'data', 'type'), 'PAGE');
  assert.equal(at(debug.body, 'data', 'expires_at'), 0);
  assert.equal(at(debug.body, 'data', 'is_valid'), true);
  assert.equal(at(debug.body, 'data', 'profile_id'), s.pageId);
  assert.ok((at(debug.body, 'data', 'scopes') as string[]).includes('pages_messaging'));

  const info = await get(`${s.api}/${s.pageId}?fields=name,category&access_token=${derived}`);
  assert.deepEqual(info.body, { name: 'Coffee Shop', category: 'Restaurant', id: s.pageId });
  const badField = await get(`${s.api}/${s.pageId}?fields=nonsense&access_token=${derived}`);
  assert.match(String(at(badField.body, 'error', 'message')), /nonexisting field/);

  await post(`${s.base}/_sandbox/clock/advance`, { ms: 2 * 3600 * 1000 });
  const expired = await get(`${s.api}/me?access_token=${s.userToken}`);
  assert.equal(at(expired.body, 'error', 'code'), 190);
  assert.equal(at(expired.body, 'error', 'error_subcode'), 463);
  const stillOk = await get(`${s.api}/me?access_token=${derived}`);
  assert.equal(stillOk.body.id, s.pageId);
  const missing = await get(`${s.api}/me`);
  assert.equal(at(missing.body, 'error', 'code'), 104);
});

test('disconnected page and revoked tokens answer code 190 with the reason subcode', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s);
  await userSays(s, psid, 'hi');
  await post(`${s.base}/_sandbox/pages/${s.pageId}/disconnect`, { reason: 'password_changed' });
  const res = await send(s, { recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'x' } });
  assert.equal(res.status, 400);
  assert.equal(at(res.body, 'error', 'code'), 190);
  assert.equal(at(res.body, 'error', 'error_subcode'), 460);
  const appInfo = await get(`${s.base}/_sandbox/app`);
  const debug = await get(`${s.api}/debug_token?input_token=${s.pageToken}&access_token=${encodeURIComponent(String(appInfo.body.app_access_token))}`);
  assert.equal(at(debug.body, 'data', 'is_valid'), false);
  const skipped = await userSays(s, psid, 'hello?');
  assert.match(String(at(skipped.body, 'webhook_skipped')), /disconnected/);
  const re = await post(`${s.base}/_sandbox/pages/${s.pageId}/reconnect`);
  const fresh = String(re.body.access_token);
  const ok = await send(s, { recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'back' } }, fresh);
  assert.equal(ok.status, 200);
  const old = await send(s, { recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'old' } });
  assert.equal(at(old.body, 'error', 'error_subcode'), 460);
  await post(`${s.base}/_sandbox/tokens/revoke`, { access_token: fresh, reason: 'deauthorized' });
  const revoked = await send(s, { recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'x' } }, fresh);
  assert.equal(at(revoked.body, 'error', 'error_subcode'), 458);
});

test('faults: rate limits 4/17/32/613, 5xx, hanging responses', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s);
  await userSays(s, psid, 'hi');
  const msg = { recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'x' } };
  for (const code of [4, 17, 32, 613]) {
    await post(`${s.base}/_sandbox/faults`, { kind: 'rate_limit', endpoint: 'messages', code });
    const limited = await send(s, msg);
    assert.equal(at(limited.body, 'error', 'code'), code);
    assert.equal(at(limited.body, 'error', 'is_transient'), true);
  }
  assert.equal((await send(s, msg)).status, 200, 'faults are consumed');
  await post(`${s.base}/_sandbox/faults`, { kind: 'server_error', status: 503, count: 2 });
  assert.equal((await send(s, msg)).status, 503);
  assert.equal((await get(`${s.api}/me?access_token=${s.pageToken}`)).status, 503);
  assert.equal((await send(s, msg)).status, 200);
  await post(`${s.base}/_sandbox/faults`, { kind: 'timeout', endpoint: 'messages', delay_ms: 300 });
  const started = Date.now();
  const slow = await send(s, msg);
  assert.ok(Date.now() - started >= 290, 'response was held back');
  assert.equal(slow.status, 200);
  await post(`${s.base}/_sandbox/faults`, { kind: 'error', endpoint: 'messages', code: 368, message: '(#368) The action attempted has been deemed abusive' });
  const abusive = await send(s, msg);
  assert.equal(at(abusive.body, 'error', 'code'), 368);
});

test('user profile with gender, timezone and a real PNG profile picture; only after the user started; gender, timezone and locale only after the app review', async (t) => {
  const s = await setup(t);
  const psid = await newUser(s);
  const before = await get(`${s.api}/${psid}?fields=first_name&access_token=${s.pageToken}`);
  assert.equal(at(before.body, 'error', 'code'), 100);
  assert.equal(at(before.body, 'error', 'error_subcode'), 33);
  await userSays(s, psid, 'hi');
  // An app without the review: one reviewed field fails the whole call; the basic ones answer.
  for (const field of ['gender', 'timezone', 'locale']) {
    const refused = await get(`${s.api}/${psid}?fields=first_name,last_name,profile_pic,${field}&access_token=${s.pageToken}`);
    assert.equal(refused.status, 400);
    assert.deepEqual([at(refused.body, 'error', 'code'), at(refused.body, 'error', 'error_subcode')], [100, 2018247]);
    assert.equal(at(refused.body, 'error', 'message'), '(#100) Insufficient permission to access user profile');
  }
  const basic = await get(`${s.api}/${psid}?fields=first_name,last_name,profile_pic&access_token=${s.pageToken}`);
  assert.equal(basic.status, 200, JSON.stringify(basic.body));
  assert.equal(basic.body.first_name, 'Jana');
  assert.equal((await call('PATCH', `${s.base}/_sandbox/app`, { profile_fields_reviewed: true })).body.profile_fields_reviewed, true);
  const profile = await get(`${s.api}/${psid}?fields=first_name,last_name,name,profile_pic,gender,timezone,locale&access_token=${s.pageToken}`);
  assert.equal(profile.status, 200, JSON.stringify(profile.body));
  assert.equal(profile.body.first_name, 'Jana');
  assert.equal(profile.body.name, 'Jana Nováková');
  assert.equal(profile.body.gender, 'female');
  assert.equal(profile.body.timezone, 2);
  assert.equal(profile.body.id, psid);
  const pic = await fetch(String(profile.body.profile_pic));
  assert.equal(pic.headers.get('content-type'), 'image/png');
  const bytes = Buffer.from(await pic.arrayBuffer());
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const defaults = await get(`${s.api}/${psid}?access_token=${s.pageToken}`);
  assert.deepEqual(Object.keys(defaults.body).sort(), ['first_name', 'id', 'last_name', 'profile_pic']);
});

test('attachments: fetched from the service, reusable ids, unreachable URLs, user attachments', async (t) => {
  const s = await setup(t);
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  s.receiver.respond((r) => {
    if (r.method === 'GET' && r.path === '/files/pic.png') return { status: 200, body: png.toString('latin1'), headers: { 'content-type': 'image/png' } };
    if (r.method === 'GET' && r.path === '/files/voice.mp3') return { status: 200, body: 'ID3', headers: { 'content-type': 'text/plain' } };
    return { status: 200 };
  });
  const psid = await newUser(s);
  await userSays(s, psid, 'hi');
  const ok = await send(s, {
    recipient: { id: psid },
    messaging_type: 'RESPONSE',
    message: { attachment: { type: 'image', payload: { url: `${s.receiver.url}/files/pic.png`, is_reusable: true } } },
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const attachmentId = String(ok.body.attachment_id);
  assert.match(attachmentId, /^\d+$/);
  assert.ok(
    s.receiver.received.some((r) => r.path === '/files/pic.png'),
    'the stand-in downloaded the file',
  );
  const reuse = await send(s, {
    recipient: { id: psid },
    messaging_type: 'RESPONSE',
    message: { attachment: { type: 'image', payload: { attachment_id: attachmentId } } },
  });
  assert.equal(reuse.status, 200);
  const audio = await send(s, {
    recipient: { id: psid },
    messaging_type: 'RESPONSE',
    message: { attachment: { type: 'audio', payload: { url: `${s.receiver.url}/files/voice.mp3` } } },
  });
  assert.equal(at(audio.body, 'error', 'error_subcode'), 2018008, 'audio must be served as audio/*');
  s.receiver.respond(() => ({ status: 404 }));
  const gone = await send(s, {
    recipient: { id: psid },
    messaging_type: 'RESPONSE',
    message: { attachment: { type: 'image', payload: { url: `${s.receiver.url}/files/gone.png` } } },
  });
  assert.equal(at(gone.body, 'error', 'error_subcode'), 2018008);
  const upload = await post(`${s.api}/me/message_attachments?access_token=${s.pageToken}`, {
    message: { attachment: { type: 'file', payload: { url: 'http://127.0.0.1:1/nothing' } } },
  });
  assert.equal(at(upload.body, 'error', 'error_subcode'), 2018008);

  const form = new FormData();
  form.set('message', JSON.stringify({ attachment: { type: 'image', payload: { is_reusable: true } } }));
  form.set('filedata', new Blob([png], { type: 'image/png' }), 'up.png');
  const uploaded = await fetch(`${s.api}/${s.pageId}/message_attachments?access_token=${s.pageToken}`, { method: 'POST', body: form });
  const uploadedBody = (await uploaded.json()) as Record<string, unknown>;
  assert.equal(uploaded.status, 200, JSON.stringify(uploadedBody));
  assert.match(String(uploadedBody.attachment_id), /^\d+$/);

  const userFile = await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/attachments`, { type: 'image' });
  const url = String(at(userFile.body, 'event', 'message', 'attachments', 0, 'payload', 'url'));
  assert.ok(url.startsWith(s.base), 'URL served by the stand-in');
  const file = await fetch(url);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get('content-type'), 'image/png');
  const loc = await post(`${s.base}/_sandbox/pages/${s.pageId}/users/${psid}/location`, { lat: 50.08, long: 14.42 });
  assert.deepEqual(at(loc.body, 'event', 'message', 'attachments', 0, 'payload', 'coordinates'), { lat: 50.08, long: 14.42 });
});

test('appsecret_proof is checked and can be required; unknown paths give code 2500', async (t) => {
  const s = await setup(t);
  const proof = createHmac('sha256', s.secret).update(s.pageToken).digest('hex');
  const good = await get(`${s.api}/me?access_token=${s.pageToken}&appsecret_proof=${proof}`);
  assert.equal(good.body.id, s.pageId);
  const bad = await get(`${s.api}/me?access_token=${s.pageToken}&appsecret_proof=abc`);
  assert.equal(at(bad.body, 'error', 'code'), 100);
  await call('PATCH', `${s.base}/_sandbox/app`, { require_appsecret_proof: true });
  const without = await get(`${s.api}/me?access_token=${s.pageToken}`);
  assert.match(String(at(without.body, 'error', 'message')), /appsecret_proof/);
  const unknown = await get(`${s.api}/me/nothing_here?access_token=${s.pageToken}&appsecret_proof=${proof}`);
  assert.equal(at(unknown.body, 'error', 'code'), 2500);
});
