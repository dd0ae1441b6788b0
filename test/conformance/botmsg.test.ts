/**
 * botmsg against the platform's own published shapes, without the stand-in. Payloads are
 * transcribed from the bot platform's public Bot API reference (the Update, Message,
 * CallbackQuery and ChatMemberUpdated objects, setWebhook with its secret-token header, the
 * request and response envelope, the inline and reply keyboard markup) and from its published
 * sample webhook updates; its example token `123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11` is used
 * as the bot token. The platform's side of HTTP calls is a recording server answering the
 * reference's example responses.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseUpdate } from '../../src/connectors/botmsg/inbound.js';
import { renderSend } from '../../src/connectors/botmsg/render.js';
import { botFailure } from '../../src/connectors/botmsg/api.js';
import { messageFailedCode } from '../../src/connectors/failure-codes.js';
import type { InboundCall } from '../../src/connectors/connector.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { on, startReferenceServer, type ReferenceServer } from './helpers/reference-server.js';

const TOKEN = '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11';
/** The header is `X-<Platform>-Bot-Api-Secret-Token`; the brand is configuration. */
const SECRET_HEADER = 'X-Botmsg-Bot-Api-Secret-Token';
const SECRET = 'reference_secret-Token_0123456789';

const FROM = { id: 1111111, is_bot: false, first_name: 'Test Firstname', last_name: 'Test Lastname', username: 'Testusername', language_code: 'en' };
const CHAT = { id: 1111111, type: 'private', first_name: 'Test Firstname', last_name: 'Test Lastname', username: 'Testusername' };

// Sample webhook updates of the reference: a text message, a callback query, then a
// ChatMemberUpdated in a private chat (the user blocked the bot: new status `kicked`).
const MESSAGE_UPDATE = { update_id: 10000, message: { date: 1441645532, chat: CHAT, message_id: 1365, from: FROM, text: '/start' } };
const PHOTO_UPDATE = {
  update_id: 10001,
  message: {
    date: 1441645550,
    chat: CHAT,
    message_id: 1366,
    from: FROM,
    photo: [
      { file_id: 'AgADBAADq6cxG3LsuA4small', file_unique_id: 'AQADq6cxG3LsuA4', width: 90, height: 51, file_size: 1101 },
      { file_id: 'AgADBAADq6cxG3LsuA4large', file_unique_id: 'AQADq6cxG3LsuA5', width: 1280, height: 720, file_size: 73000 },
    ],
    caption: 'Latte art',
  },
};
const LOCATION_UPDATE = {
  update_id: 10002,
  message: { date: 1441645560, chat: CHAT, message_id: 1367, from: FROM, location: { latitude: 50.0875, longitude: 14.4213 } },
};
// Document reference (a file with its name and type) and a shared contact (the phone quick reply).
const DOCUMENT_UPDATE = {
  update_id: 10007,
  message: {
    date: 1441645590,
    chat: CHAT,
    message_id: 1369,
    from: FROM,
    document: { file_name: 'menu.pdf', mime_type: 'application/pdf', file_id: 'BQADBAADDocumentFileId', file_unique_id: 'AgADDoc', file_size: 24123 },
  },
};
const CONTACT_UPDATE = {
  update_id: 10008,
  message: {
    date: 1441645595,
    chat: CHAT,
    message_id: 1370,
    from: FROM,
    contact: { phone_number: '+420601555111', first_name: 'Test Firstname', user_id: 1111111 },
  },
};
const CALLBACK_UPDATE = {
  update_id: 10003,
  callback_query: {
    id: '4382bfdwdsb323b2d9',
    from: FROM,
    message: { message_id: 1368, date: 1441645570, chat: CHAT, text: 'Order?' },
    chat_instance: '-1234567890123456789',
    data: 'Data from button callback',
  },
};
const BLOCKED_UPDATE = {
  update_id: 10004,
  my_chat_member: {
    chat: CHAT,
    from: FROM,
    date: 1441645580,
    old_chat_member: { user: { id: 123456, is_bot: true, first_name: 'Coffee Shop', username: 'coffee_shop_bot' }, status: 'member' },
    new_chat_member: { user: { id: 123456, is_bot: true, first_name: 'Coffee Shop', username: 'coffee_shop_bot' }, status: 'kicked', until_date: 0 },
  },
};
const UNBLOCKED_UPDATE = {
  update_id: 10005,
  my_chat_member: {
    ...BLOCKED_UPDATE.my_chat_member,
    old_chat_member: BLOCKED_UPDATE.my_chat_member.new_chat_member,
    new_chat_member: BLOCKED_UPDATE.my_chat_member.old_chat_member,
  },
};

function call(update: unknown, secret: string | null = SECRET): InboundCall {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret !== null) headers[SECRET_HEADER.toLowerCase()] = secret;
  return {
    method: 'POST',
    endpoint: 'updates',
    url: 'https://service.example/v1/inbound/1/updates',
    headers,
    query: {},
    rawBody: Buffer.from(JSON.stringify(update)),
  };
}

describe('botmsg conformance: the connector against the reference shapes', () => {
  test('the secret-token header (setWebhook reference): equal passes; missing, other, other case or longer is refused', () => {
    assert.equal(parseUpdate(call(MESSAGE_UPDATE), SECRET_HEADER, SECRET).ok, true);
    for (const given of [null, 'wrong', SECRET.toLowerCase(), `${SECRET}x`, ''] as const) {
      const parsed = parseUpdate(call(MESSAGE_UPDATE, given), SECRET_HEADER, SECRET);
      assert.equal(parsed.ok, false, String(given));
      assert.equal(!parsed.ok && parsed.status, 403);
    }
  });

  test('each update kind of the reference becomes its neutral event', () => {
    const events = (update: unknown) => {
      const parsed = parseUpdate(call(update), SECRET_HEADER, SECRET);
      assert.equal(parsed.ok, true);
      return parsed.ok ? parsed : { events: [], reply: undefined };
    };
    const [text] = events(MESSAGE_UPDATE).events;
    assert.deepEqual(text, {
      kind: 'message',
      user: {
        externalId: '1111111',
        name: 'Test Firstname Test Lastname',
        profile: { first_name: 'Test Firstname', last_name: 'Test Lastname', username: 'Testusername', language_code: 'en' },
      },
      at: 1441645532000,
      externalId: '1111111:1365',
      content: { type: 'text', text: '/start', matchQuickReplies: true },
    });
    const photo = events(PHOTO_UPDATE).events;
    assert.deepEqual(
      photo.map((e) => e.kind === 'message' && e.content),
      [
        { type: 'image', media: { ref: 'AgADBAADq6cxG3LsuA4large' } },
        { type: 'text', text: 'Latte art' },
      ],
      'the largest photo size (the last), then the caption',
    );
    const [document] = events(DOCUMENT_UPDATE).events;
    assert.deepEqual(document?.kind === 'message' && document.content, {
      type: 'file',
      media: { ref: 'BQADBAADDocumentFileId', name: 'menu.pdf', mimeType: 'application/pdf' },
    });
    const [contact] = events(CONTACT_UPDATE).events;
    assert.deepEqual(contact?.kind === 'message' && contact.content, { type: 'text', text: '+420601555111' });
    const [location] = events(LOCATION_UPDATE).events;
    assert.deepEqual(location?.kind === 'message' && location.content, { type: 'location', latitude: 50.0875, longitude: 14.4213 });
    const callback = events(CALLBACK_UPDATE);
    assert.deepEqual(
      callback.events.map((e) => e.kind === 'postback' && [e.payload, e.eventKey]),
      [['Data from button callback', 'query:4382bfdwdsb323b2d9']],
    );
    // answerCallbackQuery reference: the press is answered in the webhook's response.
    assert.deepEqual(JSON.parse(callback.reply!.body), { method: 'answerCallbackQuery', callback_query_id: '4382bfdwdsb323b2d9' });
    const [blocked] = events(BLOCKED_UPDATE).events;
    assert.deepEqual(
      blocked && {
        kind: blocked.kind,
        reason: blocked.kind === 'opt_out' && blocked.reason,
        user: blocked.user.externalId,
        key: blocked.kind === 'opt_out' && blocked.eventKey,
      },
      {
        kind: 'opt_out',
        reason: 'blocked',
        user: '1111111',
        key: 'update:10004',
      },
    );
    assert.deepEqual(events(UNBLOCKED_UPDATE).events, [], 'unblocking is answered, not reported');
    // A group message is not a private chat: answered, not reported.
    assert.deepEqual(events({ update_id: 10006, message: { ...MESSAGE_UPDATE.message, chat: { id: -100123, type: 'supergroup', title: 'Fans' } } }).events, []);
  });

  test('outbound calls equal the reference requests', () => {
    const chat = '1111111';
    assert.deepEqual(renderSend(chat, { type: 'text', payload: 'Hello!' }), {
      ok: true,
      value: { method: 'sendMessage', params: { chat_id: chat, text: 'Hello!' } },
    });
    // sendPhoto with a URL and a caption; InlineKeyboardMarkup reference (one button a row).
    assert.deepEqual(
      renderSend(chat, {
        type: 'structure',
        payload: {
          title: 'Latte',
          image_url: 'https://example.com/latte.jpg',
          buttons: [
            { type: 'postback', title: 'Yes', payload: 'yes' },
            { type: 'url', title: 'Open', payload: 'https://example.com/' },
          ],
        },
      }),
      {
        ok: true,
        value: {
          method: 'sendPhoto',
          params: {
            chat_id: chat,
            photo: 'https://example.com/latte.jpg',
            caption: 'Latte',
            reply_markup: { inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }], [{ text: 'Open', url: 'https://example.com/' }]] },
          },
        },
      },
    );
    // ReplyKeyboardMarkup reference: contact and location requests.
    assert.deepEqual(renderSend(chat, { type: 'text', payload: 'Where?', quick_replies: [{ type: 'phone_number' }, { type: 'location' }] }), {
      ok: true,
      value: {
        method: 'sendMessage',
        params: {
          chat_id: chat,
          text: 'Where?',
          reply_markup: {
            keyboard: [[{ text: 'Share phone number', request_contact: true }], [{ text: 'Send location', request_location: true }]],
            one_time_keyboard: true,
            resize_keyboard: true,
          },
        },
      },
    });
    assert.deepEqual(renderSend(chat, { type: 'location', payload: { latitude: 50.0875, longitude: 14.4213 } }), {
      ok: true,
      value: { method: 'sendLocation', params: { chat_id: chat, latitude: 50.0875, longitude: 14.4213 } },
    });
    // A card with nothing to show as text is never sent as white space ("message text is empty").
    assert.equal(renderSend(chat, { type: 'structure', payload: { title: ' ', buttons: [{ type: 'postback', title: 'Yes', payload: 'yes' }] } }).ok, false);
  });

  test('the error envelope: 400 chat not found is message_failed code 3, 403 blocked is 2, 429 keeps retry_after', () => {
    const notFound = botFailure(400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' });
    assert.equal(messageFailedCode('botmsg', notFound.code), 3);
    const blocked = botFailure(403, { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' });
    assert.equal(messageFailedCode('botmsg', blocked.code), 2);
    const empty = botFailure(400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
    assert.equal(messageFailedCode('botmsg', empty.code), 1);
    const limited = botFailure(429, { ok: false, error_code: 429, description: 'Too Many Requests: retry after 34', parameters: { retry_after: 34 } });
    assert.deepEqual([limited.code, limited.retryable, limited.retryAfterMs], ['rate_limited', true, 34_000]);
  });
});

describe('botmsg conformance: platform calls and the HTTP route', () => {
  let ref: ReferenceServer;
  let s: TestServer;
  let hook: WebhookReceiver;
  let channelId = '';
  let secret = '';

  before(async () => {
    ref = await startReferenceServer();
    ref.routes.push(
      // getMe reference response.
      on('POST', /\/getMe$/, {
        body: {
          ok: true,
          result: {
            id: 123456,
            is_bot: true,
            first_name: 'Coffee Shop',
            username: 'coffee_shop_bot',
            can_join_groups: true,
            can_read_all_group_messages: false,
            supports_inline_queries: false,
          },
        },
      }),
      on('POST', /\/setWebhook$/, { body: { ok: true, result: true, description: 'Webhook was set' } }),
      // sendMessage answers the sent Message.
      on('POST', /\/sendMessage$/, (r) => ({
        body: {
          ok: true,
          result: {
            message_id: 1400,
            from: { id: 123456, is_bot: true, first_name: 'Coffee Shop', username: 'coffee_shop_bot' },
            chat: CHAT,
            date: 1441645600,
            text: r.json.text,
          },
        },
      })),
    );
    s = await startTestServer('sqlite', {
      workers: true,
      env: { BOTMSG_API_URL: ref.url, BOTMSG_SECRET_HEADER: SECRET_HEADER, PLATFORM_TIMEOUT_MS: '1500', WEBHOOK_RETRY_SCHEDULE: '1,1,1' },
    });
    hook = await startWebhookReceiver();
    const made = await s.api.post('/v1/channels', { type: 'botmsg', name: 'Reference bot', webhook: { url: hook.url }, botmsg: { access_token: TOKEN } });
    assert.equal(made.status, 201, made.text);
    hook.secret = made.body.webhook.secret;
    channelId = made.body.id;
    secret = ref.requests.find((r) => r.path.endsWith('/setWebhook'))!.json.secret_token;
  });
  after(async () => {
    await s?.close();
    await Promise.allSettled([ref?.close(), hook?.close()]);
  });

  test('connecting: getMe, then setWebhook with the URL, a secret token of the allowed alphabet and the update types asked for', () => {
    assert.deepEqual(
      ref.requests.map((r) => r.path),
      [`/bot${TOKEN}/getMe`, `/bot${TOKEN}/setWebhook`],
    );
    const set = ref.requests[1]!.json;
    assert.equal(set.url, `${s.baseUrl}/inbound/${channelId}/updates`);
    assert.match(set.secret_token, /^[A-Za-z0-9_-]{1,256}$/);
    assert.deepEqual(set.allowed_updates, ['message', 'callback_query', 'my_chat_member']);
  });

  test('the HTTP route: a reference update with the secret header is reported; without it the channel URL answers as unknown (404); a reply is the reference request', async () => {
    const route = `${s.baseUrl}/inbound/${channelId}/updates`;
    const post = (update: unknown, headers: Record<string, string>) =>
      fetch(route, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(update) });
    // A channel's own URL does not tell whether the channel exists: a failed check is 404.
    assert.equal((await post(MESSAGE_UPDATE, {})).status, 404);
    assert.equal((await post(MESSAGE_UPDATE, { [SECRET_HEADER]: 'guess' })).status, 404);
    assert.equal((await post(MESSAGE_UPDATE, { [SECRET_HEADER]: secret })).status, 200);
    const received = await hook.waitFor('message_received');
    assert.deepEqual(received.data.content, { type: 'text', payload: '/start' });
    const blocked = await post(BLOCKED_UPDATE, { [SECRET_HEADER]: secret });
    assert.equal(blocked.status, 200, 'the block is answered so the platform does not repeat it');

    const sent = await s.api.post('/v1/messages', {
      channel: { id: channelId },
      contact: { id: received.data.contact.id },
      content: { type: 'text', payload: 'Hello!' },
    });
    assert.equal(sent.status, 201, sent.text);
    const request = ref.requests.at(-1)!;
    assert.equal(request.path, `/bot${TOKEN}/sendMessage`);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(request.json, { chat_id: '1111111', text: 'Hello!' });
  });
});
