import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createBotmsgStandIn, type BotmsgOptions } from '../../sandbox/botmsg/server.js';
import { startReceiver, type Received, type Receiver } from './helpers/receiver.js';
import { at, get, post } from './helpers/http.js';

const SECRET = 'S3cret_token-1';
const HEADER = 'x-botmsg-bot-api-secret-token';

interface Setup {
  base: string;
  api: string;
  token: string;
  botId: number;
  receiver: Receiver;
  standIn: ReturnType<typeof createBotmsgStandIn>;
}

async function setup(t: TestContext, options: BotmsgOptions = {}, webhook = true): Promise<Setup> {
  const standIn = createBotmsgStandIn(options);
  const base = await standIn.listen(0);
  const receiver = await startReceiver(() => ({ status: 200, body: '' }));
  t.after(async () => {
    await standIn.close();
    await receiver.close();
  });
  const bot = await post(`${base}/_sandbox/bots`, { username: 'shop_bot', first_name: 'Shop' });
  assert.equal(bot.status, 201);
  const token = String(bot.body.token);
  const s: Setup = { base, api: `${base}/bot${token}`, token, botId: Number(at(bot.body, 'bot', 'id')), receiver, standIn };
  if (webhook) {
    const set = await post(`${s.api}/setWebhook`, { url: `${receiver.url}/hook`, secret_token: SECRET });
    assert.deepEqual(set.body, { ok: true, result: true, description: 'Webhook was set' });
  }
  return s;
}

async function newUser(s: Setup, started = true): Promise<number> {
  const res = await post(`${s.base}/_sandbox/bots/${s.botId}/users`, { first_name: 'Eva', last_name: 'Král', username: 'eva_k', language_code: 'cs' });
  const id = Number(at(res.body, 'user', 'id'));
  if (started) {
    const start = await post(`${s.base}/_sandbox/bots/${s.botId}/users/${id}/start`);
    assert.equal(start.status, 200);
  }
  return id;
}

function act(s: Setup, userId: number, action: string, body: Record<string, unknown> = {}) {
  return post(`${s.base}/_sandbox/bots/${s.botId}/users/${userId}/${action}`, body);
}

function posts(r: Receiver): Received[] {
  return r.received.filter((x) => x.method === 'POST');
}

test('getMe, bad tokens, unknown and case-insensitive methods', async (t) => {
  const s = await setup(t, {}, false);
  const me = await get(`${s.api}/getMe`);
  assert.equal(me.status, 200);
  assert.equal(at(me.body, 'ok'), true);
  assert.equal(at(me.body, 'result', 'is_bot'), true);
  assert.equal(at(me.body, 'result', 'username'), 'shop_bot');
  assert.equal(at(me.body, 'result', 'id'), s.botId);
  const upper = await post(`${s.api}/GETME`);
  assert.equal(at(upper.body, 'result', 'id'), s.botId);
  const bad = await get(`${s.base}/bot123:nope/getMe`);
  assert.equal(bad.status, 401);
  assert.deepEqual(bad.body, { ok: false, error_code: 401, description: 'Unauthorized' });
  const unknown = await get(`${s.api}/flyToTheMoon`);
  assert.equal(unknown.status, 404);
  assert.equal(at(unknown.body, 'description'), 'Not Found');

  const rotated = await post(`${s.base}/_sandbox/bots/${s.botId}/revoke_token`);
  assert.equal((await get(`${s.api}/getMe`)).status, 401, 'revoked token');
  assert.equal((await get(`${s.base}/bot${String(rotated.body.token)}/getMe`)).status, 200);
});

test('updates reach the webhook with the secret token header and increasing update_id', async (t) => {
  const s = await setup(t);
  const user = await newUser(s);
  const res = await act(s, user, 'messages', { text: 'Ahoj 👋' });
  assert.equal(at(res.body, 'webhook', 'status'), 200);
  const [start, message] = posts(s.receiver);
  assert.ok(start && message);
  assert.equal(start.headers[HEADER], SECRET);
  assert.equal(message.headers[HEADER], SECRET);
  const first = JSON.parse(start.text) as unknown;
  const second = JSON.parse(message.text) as unknown;
  assert.equal(at(first, 'message', 'text'), '/start');
  assert.equal(at(first, 'message', 'entities', 0, 'type'), 'bot_command');
  assert.equal(Number(at(second, 'update_id')), Number(at(first, 'update_id')) + 1);
  assert.equal(at(second, 'message', 'text'), 'Ahoj 👋');
  assert.equal(at(second, 'message', 'from', 'id'), user);
  assert.equal(at(second, 'message', 'from', 'is_bot'), false);
  assert.equal(at(second, 'message', 'chat', 'type'), 'private');
  assert.equal(at(second, 'message', 'chat', 'id'), user);

  s.receiver.respond(() => ({ status: 502, body: 'bad gateway' }));
  const failed = await act(s, user, 'messages', { text: 'again' });
  assert.equal(at(failed.body, 'webhook', 'status'), 502);
  const info = await get(`${s.api}/getWebhookInfo`);
  assert.equal(at(info.body, 'result', 'url'), `${s.receiver.url}/hook`);
  assert.equal(at(info.body, 'result', 'pending_update_count'), 1);
  assert.match(String(at(info.body, 'result', 'last_error_message')), /502/);
  assert.equal(typeof at(info.body, 'result', 'last_error_date'), 'number');
  s.receiver.respond(() => ({ status: 200 }));
  const retried = await post(`${s.base}/_sandbox/bots/${s.botId}/webhook/retry`);
  assert.equal(at(retried.body, 'pending_update_count'), 0);
  assert.equal(at(retried.body, 'webhooks', 0, 'status'), 200);
});

test('setWebhook validation, deleteWebhook and getUpdates with offsets', async (t) => {
  const s = await setup(t, { requireHttpsWebhook: true }, false);
  const http = await post(`${s.api}/setWebhook`, { url: 'http://127.0.0.1:1/x' });
  assert.equal(http.status, 400);
  assert.match(String(at(http.body, 'description')), /HTTPS/);
  const badSecret = await post(`${s.api}/setWebhook`, { url: 'https://127.0.0.1/x', secret_token: 'has space' });
  assert.equal(at(badSecret.body, 'error_code'), 400);
  const user = await newUser(s);
  await act(s, user, 'messages', { text: 'one' });
  const updates = await get(`${s.api}/getUpdates`);
  const list = at(updates.body, 'result') as Array<Record<string, unknown>>;
  assert.equal(list.length, 2);
  const lastId = Number(list[1]?.update_id);
  const confirmed = await get(`${s.api}/getUpdates?offset=${lastId + 1}`);
  assert.deepEqual(at(confirmed.body, 'result'), []);
  const set = await post(`${s.api}/setWebhook`, { url: 'https://127.0.0.1:8443/x' });
  assert.equal(set.status, 200);
  const conflict = await get(`${s.api}/getUpdates`);
  assert.equal(conflict.status, 409);
  assert.match(String(at(conflict.body, 'description')), /^Conflict/);
  const del = await post(`${s.api}/deleteWebhook`);
  assert.deepEqual(del.body, { ok: true, result: true, description: 'Webhook was deleted' });
  const info = await get(`${s.api}/getWebhookInfo`);
  assert.equal(at(info.body, 'result', 'url'), '');
});

test('sendMessage: chats, blocked users, text limits and parse modes', async (t) => {
  const s = await setup(t);
  const user = await newUser(s);
  const fresh = await newUser(s, false);
  const send = (body: Record<string, unknown>) => post(`${s.api}/sendMessage`, body);

  const ok = await send({ chat_id: user, text: 'Hello <b>Eva</b> &amp; co', parse_mode: 'HTML' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(at(ok.body, 'result', 'text'), 'Hello Eva & co');
  assert.deepEqual(at(ok.body, 'result', 'entities'), [{ type: 'bold', offset: 6, length: 3 }]);
  assert.equal(at(ok.body, 'result', 'from', 'is_bot'), true);
  assert.equal(at(ok.body, 'result', 'chat', 'id'), user);
  assert.equal(typeof at(ok.body, 'result', 'message_id'), 'number');

  const md = await send({ chat_id: String(user), text: '*Total:* 12\\.50 EUR', parse_mode: 'MarkdownV2' });
  assert.equal(at(md.body, 'result', 'text'), 'Total: 12.50 EUR');
  const unescaped = await send({ chat_id: user, text: 'Total: 12.50 EUR', parse_mode: 'MarkdownV2' });
  assert.equal(unescaped.status, 400);
  assert.match(String(at(unescaped.body, 'description')), /^Bad Request: can't parse entities: Character '\.' is reserved/);
  const badHtml = await send({ chat_id: user, text: '<b>open', parse_mode: 'HTML' });
  assert.match(String(at(badHtml.body, 'description')), /can't parse entities/);
  const mode = await send({ chat_id: user, text: 'x', parse_mode: 'Fancy' });
  assert.equal(at(mode.body, 'description'), 'Bad Request: unsupported parse_mode');

  const cases: Array<[Record<string, unknown>, number, string]> = [
    [{ chat_id: 42, text: 'x' }, 400, 'Bad Request: chat not found'],
    [{ text: 'x' }, 400, 'Bad Request: chat_id is empty'],
    [{ chat_id: fresh, text: 'x' }, 403, "Forbidden: bot can't initiate conversation with a user"],
    [{ chat_id: user, text: '' }, 400, 'Bad Request: message text is empty'],
    [{ chat_id: user, text: 'x'.repeat(4097) }, 400, 'Bad Request: message is too long'],
  ];
  for (const [body, code, description] of cases) {
    const res = await send(body);
    assert.equal(res.status, code);
    assert.deepEqual(res.body, { ok: false, error_code: code, description });
  }
  assert.equal((await send({ chat_id: user, text: 'x'.repeat(4096) })).status, 200);

  const block = await act(s, user, 'block');
  assert.equal(at(block.body, 'update', 'my_chat_member', 'new_chat_member', 'status'), 'kicked');
  const blocked = await send({ chat_id: user, text: 'hello?' });
  assert.deepEqual(blocked.body, { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' });
  await act(s, user, 'start');
  assert.equal((await send({ chat_id: user, text: 'welcome back' })).status, 200);
  await post(`${s.base}/_sandbox/bots/${s.botId}/users/${user}/deactivate`);
  assert.equal(at((await send({ chat_id: user, text: 'x' })).body, 'description'), 'Forbidden: user is deactivated');

  const listed = await get(`${s.base}/_sandbox/bots/${s.botId}/messages?chat_id=${user}`);
  const texts = (at(listed.body, 'messages') as Array<{ message: { text?: string } }>).map((m) => m.message.text);
  assert.ok(texts.includes('Hello Eva & co') && texts.includes('welcome back'));
});

test('inline keyboards: validation, callback_query press, answerCallbackQuery, edit', async (t) => {
  const s = await setup(t);
  const user = await newUser(s);
  const send = (markup: unknown) => post(`${s.api}/sendMessage`, { chat_id: user, text: 'Confirm?', reply_markup: markup });
  const tooLong = await send({ inline_keyboard: [[{ text: 'Yes', callback_data: 'y'.repeat(65) }]] });
  assert.equal(at(tooLong.body, 'description'), 'Bad Request: BUTTON_DATA_INVALID');
  const textOnly = await send({ inline_keyboard: [[{ text: 'Yes' }]] });
  assert.match(String(at(textOnly.body, 'description')), /Text buttons are unallowed in the inline keyboard/);
  const garbage = await send('not json');
  assert.match(String(at(garbage.body, 'description')), /can't parse reply keyboard markup/);

  const sent = await send({
    inline_keyboard: [
      [
        { text: 'Yes', callback_data: 'yes' },
        { text: 'Site', url: 'https://example.com' },
      ],
    ],
  });
  assert.equal(sent.status, 200);
  const messageId = Number(at(sent.body, 'result', 'message_id'));
  assert.equal(at(sent.body, 'result', 'reply_markup', 'inline_keyboard', 0, 0, 'callback_data'), 'yes');
  const press = await act(s, user, 'callback_query', { message_id: messageId, data: 'yes' });
  assert.equal(at(press.body, 'webhook', 'status'), 200);
  const hook = JSON.parse(posts(s.receiver).at(-1)?.text ?? '{}') as unknown;
  const queryId = String(at(hook, 'callback_query', 'id'));
  assert.equal(queryId, at(press.body, 'callback_query_id'));
  assert.equal(at(hook, 'callback_query', 'data'), 'yes');
  assert.equal(at(hook, 'callback_query', 'message', 'message_id'), messageId);
  const wrong = await act(s, user, 'callback_query', { message_id: messageId, data: 'no' });
  assert.equal(wrong.status, 400);

  const answered = await post(`${s.api}/answerCallbackQuery`, { callback_query_id: queryId, text: 'Done' });
  assert.deepEqual(answered.body, { ok: true, result: true });
  const twice = await post(`${s.api}/answerCallbackQuery`, { callback_query_id: queryId });
  assert.equal(at(twice.body, 'description'), 'Bad Request: query is too old and response timeout expired or query ID is invalid');
  const queries = await get(`${s.base}/_sandbox/bots/${s.botId}/callback_queries`);
  assert.equal(at(queries.body, 'callback_queries', 0, 'answer', 'text'), 'Done');

  const late = await act(s, user, 'callback_query', { message_id: messageId, row: 0, column: 0 });
  await post(`${s.base}/_sandbox/clock/advance`, { ms: 16 * 60 * 1000 });
  const tooOld = await post(`${s.api}/answerCallbackQuery`, { callback_query_id: at(late.body, 'callback_query_id') });
  assert.equal(tooOld.status, 400);

  const edited = await post(`${s.api}/editMessageText`, { chat_id: user, message_id: messageId, text: 'Confirmed' });
  assert.equal(at(edited.body, 'result', 'text'), 'Confirmed');
  assert.equal(at(edited.body, 'result', 'reply_markup'), undefined);
  const same = await post(`${s.api}/editMessageText`, { chat_id: user, message_id: messageId, text: 'Confirmed' });
  assert.match(String(at(same.body, 'description')), /message is not modified/);
});

test('files: photo by URL, upload, file_id reuse, getFile and download; user photos', async (t) => {
  const s = await setup(t);
  const user = await newUser(s);
  const pngHeader = Buffer.from('89504e470d0a1a0a0000000d4948445200000280000001e0', 'hex');
  s.receiver.respond((r) => {
    if (r.method === 'GET' && r.path === '/img.png') return { status: 200, body: pngHeader.toString('latin1'), headers: { 'content-type': 'image/png' } };
    if (r.method === 'GET' && r.path === '/page.html') return { status: 200, body: '<html>', headers: { 'content-type': 'text/html' } };
    if (r.method === 'GET') return { status: 404 };
    return { status: 200 };
  });
  const byUrl = await post(`${s.api}/sendPhoto`, { chat_id: user, photo: `${s.receiver.url}/img.png`, caption: 'Our shop' });
  assert.equal(byUrl.status, 200, JSON.stringify(byUrl.body));
  const sizes = at(byUrl.body, 'result', 'photo') as Array<Record<string, unknown>>;
  assert.equal(sizes.length, 2);
  assert.equal(sizes[1]?.width, 640);
  assert.equal(sizes[1]?.height, 480);
  assert.equal(at(byUrl.body, 'result', 'caption'), 'Our shop');
  const fileId = String(sizes[1]?.file_id);

  const reuse = await post(`${s.api}/sendPhoto`, { chat_id: user, photo: fileId });
  assert.equal(reuse.status, 200);
  const wrongId = await post(`${s.api}/sendPhoto`, { chat_id: user, photo: 'nonsense' });
  assert.equal(at(wrongId.body, 'description'), 'Bad Request: wrong file identifier/HTTP URL specified');
  const notFound = await post(`${s.api}/sendPhoto`, { chat_id: user, photo: `${s.receiver.url}/missing.png` });
  assert.equal(at(notFound.body, 'description'), 'Bad Request: failed to get HTTP URL content');
  const html = await post(`${s.api}/sendPhoto`, { chat_id: user, photo: `${s.receiver.url}/page.html` });
  assert.equal(at(html.body, 'description'), 'Bad Request: wrong type of the web page content');
  const longCaption = await post(`${s.api}/sendPhoto`, { chat_id: user, photo: fileId, caption: 'c'.repeat(1025) });
  assert.equal(at(longCaption.body, 'description'), 'Bad Request: message caption is too long');

  const form = new FormData();
  form.set('chat_id', String(user));
  form.set('document', new Blob([Buffer.from('%PDF-1.4 sandbox')], { type: 'application/pdf' }), 'invoice.pdf');
  form.set('reply_markup', JSON.stringify({ inline_keyboard: [[{ text: 'Pay', callback_data: 'pay' }]] }));
  const uploaded = await fetch(`${s.api}/sendDocument`, { method: 'POST', body: form });
  const upBody = (await uploaded.json()) as unknown;
  assert.equal(uploaded.status, 200, JSON.stringify(upBody));
  assert.equal(at(upBody, 'result', 'document', 'file_name'), 'invoice.pdf');
  assert.equal(at(upBody, 'result', 'document', 'mime_type'), 'application/pdf');
  const docId = String(at(upBody, 'result', 'document', 'file_id'));
  const info = await get(`${s.api}/getFile?file_id=${encodeURIComponent(docId)}`);
  const path = String(at(info.body, 'result', 'file_path'));
  assert.equal(at(info.body, 'result', 'file_size'), 16);
  const download = await fetch(`${s.base}/file/bot${s.token}/${path}`);
  assert.equal(await download.text(), '%PDF-1.4 sandbox');
  const mismatch = await post(`${s.api}/sendPhoto`, { chat_id: user, photo: docId });
  assert.equal(at(mismatch.body, 'description'), 'Bad Request: type of file mismatch');

  const userPhoto = await act(s, user, 'media', { type: 'photo', caption: 'look' });
  const photo = at(userPhoto.body, 'update', 'message', 'photo') as Array<Record<string, unknown>>;
  const biggest = String(photo.at(-1)?.file_id);
  const file = await get(`${s.api}/getFile?file_id=${encodeURIComponent(biggest)}`);
  const bytes = Buffer.from(await (await fetch(`${s.base}/file/bot${s.token}/${String(at(file.body, 'result', 'file_path'))}`)).arrayBuffer());
  assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]);
  assert.equal(bytes.length, at(file.body, 'result', 'file_size'));
  const invalid = await get(`${s.api}/getFile?file_id=zzz`);
  assert.equal(invalid.status, 400);
});

test('chat actions, locations, contacts', async (t) => {
  const s = await setup(t);
  const user = await newUser(s);
  assert.deepEqual((await post(`${s.api}/sendChatAction`, { chat_id: user, action: 'typing' })).body, { ok: true, result: true });
  const bad = await post(`${s.api}/sendChatAction`, { chat_id: user, action: 'dancing' });
  assert.equal(at(bad.body, 'description'), 'Bad Request: wrong parameter action in request');
  const actions = await get(`${s.base}/_sandbox/bots/${s.botId}/chat_actions?chat_id=${user}`);
  assert.equal(at(actions.body, 'chat_actions', 0, 'action'), 'typing');
  const loc = await post(`${s.api}/sendLocation`, { chat_id: user, latitude: 50.087, longitude: 14.421 });
  assert.deepEqual(at(loc.body, 'result', 'location'), { latitude: 50.087, longitude: 14.421 });
  const badLoc = await post(`${s.api}/sendLocation`, { chat_id: user, latitude: 91, longitude: 0 });
  assert.equal(badLoc.status, 400);
  const shared = await act(s, user, 'location', { latitude: 1.5, longitude: 2.5 });
  assert.deepEqual(at(shared.body, 'update', 'message', 'location'), { latitude: 1.5, longitude: 2.5 });
  const contact = await act(s, user, 'contact', { phone_number: '+420777000111' });
  assert.equal(at(contact.body, 'update', 'message', 'contact', 'user_id'), user);
  const form = new URLSearchParams({
    chat_id: String(user),
    text: 'pick',
    reply_markup: JSON.stringify({ keyboard: [[{ text: 'Share', request_contact: true }]], one_time_keyboard: true }),
  });
  const viaForm = await fetch(`${s.api}/sendMessage`, { method: 'POST', body: form });
  assert.equal(viaForm.status, 200);
  const listed = await get(`${s.base}/_sandbox/bots/${s.botId}/messages?chat_id=${user}`);
  const last = (at(listed.body, 'messages') as Array<Record<string, unknown>>).at(-1);
  assert.equal(at(last, 'params', 'reply_markup', 'one_time_keyboard'), true);
});

test('faults: 429 with retry_after, 5xx, hanging responses', async (t) => {
  const s = await setup(t);
  const user = await newUser(s);
  await post(`${s.base}/_sandbox/faults`, { kind: 'rate_limit', endpoint: 'sendMessage', retry_after: 34 });
  const limited = await post(`${s.api}/sendMessage`, { chat_id: user, text: 'x' });
  assert.equal(limited.status, 429);
  assert.deepEqual(limited.body, { ok: false, error_code: 429, description: 'Too Many Requests: retry after 34', parameters: { retry_after: 34 } });
  assert.equal((await post(`${s.api}/sendMessage`, { chat_id: user, text: 'x' })).status, 200);
  await post(`${s.base}/_sandbox/faults`, { kind: 'server_error', status: 502 });
  const down = await post(`${s.api}/getMe`);
  assert.equal(down.status, 502);
  assert.equal(at(down.body, 'ok'), false);
  await post(`${s.base}/_sandbox/faults`, { kind: 'timeout', endpoint: 'sendmessage', delay_ms: 250 });
  const started = Date.now();
  const slow = await post(`${s.api}/sendMessage`, { chat_id: user, text: 'slow' });
  assert.ok(Date.now() - started >= 240);
  assert.equal(slow.status, 200);
});

test('allowed_updates filters updates; a webhook answer can carry a method call', async (t) => {
  const s = await setup(t);
  const user = await newUser(s);
  s.receiver.respond((r) => {
    const body = JSON.parse(r.text) as unknown;
    const chat = at(body, 'message', 'chat', 'id');
    return { status: 200, body: JSON.stringify({ method: 'sendMessage', chat_id: chat, text: 'auto-reply' }), headers: { 'content-type': 'application/json' } };
  });
  await act(s, user, 'messages', { text: 'ping' });
  const listed = await get(`${s.base}/_sandbox/bots/${s.botId}/messages?chat_id=${user}`);
  assert.ok((at(listed.body, 'messages') as Array<{ message: { text?: string } }>).some((m) => m.message.text === 'auto-reply'));

  s.receiver.respond(() => ({ status: 200 }));
  await post(`${s.api}/setWebhook`, { url: `${s.receiver.url}/hook`, secret_token: SECRET, allowed_updates: ['callback_query'] });
  const filtered = await act(s, user, 'messages', { text: 'not delivered' });
  assert.equal(at(filtered.body, 'webhook'), null);
  assert.match(String(at(filtered.body, 'webhook_skipped')), /allowed_updates/);
  const info = await get(`${s.api}/getWebhookInfo`);
  assert.deepEqual(at(info.body, 'result', 'allowed_updates'), ['callback_query']);
});
