/**
 * appmsg against the platform's own published shapes, without the stand-in. The signature test
 * vector is the official Python SDK's (its signature test: the bot token, the `webhook` callback
 * body and the expected hex digest), checked here as the header and, as the official Node SDK's
 * middleware also reads it, as the `sig` query parameter. Callback and request bodies are
 * transcribed from the platform's public REST bot API reference (callbacks, send_message,
 * set_webhook, get_account_info, error codes). The platform's side of HTTP calls is a recording
 * server answering the reference's example responses.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { parseCallback, signatureMatches } from '../../src/connectors/appmsg/inbound.js';
import { renderMessage } from '../../src/connectors/appmsg/render.js';
import { statusFailure } from '../../src/connectors/appmsg/api.js';
import { messageFailedCode } from '../../src/connectors/failure-codes.js';
import type { InboundCall } from '../../src/connectors/connector.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { on, startReferenceServer, type ReferenceServer } from './helpers/reference-server.js';

// The official SDK's signature test vector.
const SDK_TOKEN = '44dafb7e0f40021e-61a47a1e6778d187-f2c5a676a07050b3';
const SDK_BODY = '{"event":"webhook","timestamp":4977069964384421269,"message_token":1478683725125}';
const SDK_SIGNATURE = 'd21b343448c8aee33b8e93768ef6ceb64a6ba6163099973a2b8bd028fea510ef';

/** The headers are `X-<Platform>-Auth-Token` and `X-<Platform>-Content-Signature`; the brand is configuration. */
const AUTH_HEADER = 'X-Appmsg-Auth-Token';
const SIGNATURE_HEADER = 'X-Appmsg-Content-Signature';

// Callback reference examples (timestamps in ms; message tokens are 64-bit, written as bare numbers).
const SENDER = { id: '01234567890A=', name: 'John McClane', avatar: 'http://avatar.example.com', country: 'UK', language: 'en', api_version: 1 };
const MESSAGE_CALLBACK =
  '{"event":"message","timestamp":1457764197627,"message_token":4912661846655238145,"sender":' +
  JSON.stringify(SENDER) +
  ',"message":{"type":"text","text":"a message to the service","tracking_data":"tracking data"}}';
const PICTURE_CALLBACK =
  '{"event":"message","timestamp":1457764197628,"message_token":4912661846655238146,"sender":' +
  JSON.stringify(SENDER) +
  ',"message":{"type":"picture","media":"http://media.example.com/photo.jpg","text":"look","file_name":"photo.jpg"}}';
const LOCATION_CALLBACK =
  '{"event":"message","timestamp":1457764197629,"message_token":4912661846655238147,"sender":' +
  JSON.stringify(SENDER) +
  ',"message":{"type":"location","location":{"lat":50.76891,"lon":6.11499}}}';
const FILE_CALLBACK =
  '{"event":"message","timestamp":1457764197630,"message_token":4912661846655238148,"sender":' +
  JSON.stringify(SENDER) +
  ',"message":{"type":"file","media":"http://media.example.com/menu.pdf","file_name":"menu.pdf","size":10000}}';
const CONTACT_CALLBACK =
  '{"event":"message","timestamp":1457764197631,"message_token":4912661846655238149,"sender":' +
  JSON.stringify(SENDER) +
  ',"message":{"type":"contact","contact":{"name":"Itamar","phone_number":"+972511123123"}}}';
const SUBSCRIBED_CALLBACK =
  '{"event":"subscribed","timestamp":1457764197627,"chat_hostname":"SN-CHAT-05_","user":' + JSON.stringify(SENDER) + ',"message_token":4912661846655238145}';
const UNSUBSCRIBED_CALLBACK =
  '{"event":"unsubscribed","timestamp":1457764197627,"chat_hostname":"SN-CHAT-05_","user_id":"01234567890A=","message_token":4912661846655238145}';
const STARTED_CALLBACK =
  '{"event":"conversation_started","timestamp":1457764197627,"chat_hostname":"SN-CHAT-05_","message_token":4912661846655238145,"type":"open","context":"context information","user":' +
  JSON.stringify(SENDER) +
  ',"subscribed":false}';
const DELIVERED_CALLBACK =
  '{"event":"delivered","timestamp":1457764197627,"chat_hostname":"SN-CHAT-05_","message_token":4912661846655238145,"user_id":"01234567890A="}';
const SEEN_CALLBACK = '{"event":"seen","timestamp":1457764197627,"chat_hostname":"SN-CHAT-05_","message_token":4912661846655238145,"user_id":"01234567890A="}';
const FAILED_CALLBACK =
  '{"event":"failed","timestamp":1457764197627,"chat_hostname":"SN-CHAT-05_","message_token":4912661846655238145,"user_id":"01234567890A=","desc":"failure description"}';

const sign = (body: string, token = SDK_TOKEN) => createHmac('sha256', token).update(body, 'utf8').digest('hex');

function call(body: string, headers: Record<string, string>, query: Record<string, string> = {}): InboundCall {
  return { method: 'POST', endpoint: 'events', url: 'https://service.example/v1/inbound/1/events', headers, query, rawBody: Buffer.from(body, 'utf8') };
}

describe('appmsg conformance: the connector against the reference shapes', () => {
  test("the SDK's signature test vector passes as the header and as the sig query; tampered, wrong key and missing are refused", () => {
    assert.equal(sign(SDK_BODY), SDK_SIGNATURE, 'the vector itself');
    const header = { [SIGNATURE_HEADER.toLowerCase()]: SDK_SIGNATURE };
    assert.equal(signatureMatches(call(SDK_BODY, header), SIGNATURE_HEADER, SDK_TOKEN), true);
    assert.equal(signatureMatches(call(SDK_BODY, {}, { sig: SDK_SIGNATURE }), SIGNATURE_HEADER, SDK_TOKEN), true);
    assert.deepEqual(
      parseCallback(call(SDK_BODY, header), SIGNATURE_HEADER, SDK_TOKEN),
      { ok: true, events: [] },
      'the webhook check is answered, nothing reported',
    );
    for (const bad of [
      call(SDK_BODY.replace('1478683725125', '1478683725126'), header),
      call(SDK_BODY, {}),
      call(SDK_BODY, { [SIGNATURE_HEADER.toLowerCase()]: sign(SDK_BODY, 'another-token') }),
      call(SDK_BODY, {}, { sig: SDK_SIGNATURE.slice(0, 63) }),
    ]) {
      const parsed = parseCallback(bad, SIGNATURE_HEADER, SDK_TOKEN);
      assert.equal(!parsed.ok && parsed.status, 403);
    }
  });

  test('each callback of the reference becomes its neutral event, message tokens kept exactly', () => {
    const events = (body: string) => {
      const parsed = parseCallback(call(body, { [SIGNATURE_HEADER.toLowerCase()]: sign(body) }), SIGNATURE_HEADER, SDK_TOKEN);
      assert.equal(parsed.ok, true);
      return parsed.ok ? parsed.events : [];
    };
    const [text] = events(MESSAGE_CALLBACK);
    assert.deepEqual(text, {
      kind: 'message',
      user: { externalId: '01234567890A=', profile: { country: 'UK', language: 'en' }, name: 'John McClane' },
      at: 1457764197627,
      externalId: '4912661846655238145',
      content: { type: 'text', text: 'a message to the service' },
    });
    assert.deepEqual(
      events(PICTURE_CALLBACK).map((e) => e.kind === 'message' && e.content),
      [
        { type: 'image', media: { ref: 'http://media.example.com/photo.jpg', name: 'photo.jpg' } },
        { type: 'text', text: 'look' },
      ],
    );
    assert.deepEqual(
      events(LOCATION_CALLBACK).map((e) => e.kind === 'message' && e.content),
      [{ type: 'location', latitude: 50.76891, longitude: 6.11499 }],
    );
    assert.deepEqual(
      events(FILE_CALLBACK).map((e) => e.kind === 'message' && e.content),
      [{ type: 'file', media: { ref: 'http://media.example.com/menu.pdf', name: 'menu.pdf' } }],
    );
    assert.deepEqual(
      events(CONTACT_CALLBACK).map((e) => e.kind === 'message' && e.content),
      [{ type: 'text', text: '+972511123123' }],
    );
    const [subscribed] = events(SUBSCRIBED_CALLBACK);
    assert.deepEqual(subscribed?.kind === 'opt_in' && [subscribed.optInType, subscribed.user.photo], ['subscribed', { ref: 'http://avatar.example.com' }]);
    const [unsubscribed] = events(UNSUBSCRIBED_CALLBACK);
    assert.deepEqual(unsubscribed?.kind === 'opt_out' && [unsubscribed.reason, unsubscribed.user.externalId], ['unsubscribed', '01234567890A=']);
    const [started] = events(STARTED_CALLBACK);
    assert.deepEqual(started?.kind === 'opt_in' && [started.optInType, started.payload], ['conversation_started', 'context information']);
    const [delivered] = events(DELIVERED_CALLBACK);
    assert.deepEqual(delivered?.kind === 'status' && delivered.report, { messageExternalId: '4912661846655238145', status: 'delivered', final: true });
    const [seen] = events(SEEN_CALLBACK);
    assert.deepEqual(seen?.kind === 'read' && [seen.messageExternalId, seen.watermark], ['4912661846655238145', 1457764197627]);
    const [failed] = events(FAILED_CALLBACK);
    assert.deepEqual(failed?.kind === 'status' && failed.report, {
      messageExternalId: '4912661846655238145',
      status: 'failed',
      final: true,
      reason: 'failure description',
    });
  });

  test('outbound bodies follow the send_message reference; status codes 6 and 5 are code 2 and 3', () => {
    assert.deepEqual(renderMessage({ type: 'text', payload: 'Hello world!' }).body, { type: 'text', text: 'Hello world!', min_api_version: 1 });
    assert.deepEqual(renderMessage({ type: 'location', payload: { latitude: 37.7898, longitude: -122.3942 } }).body, {
      type: 'location',
      location: { lat: 37.7898, lon: -122.3942 },
      min_api_version: 1,
    });
    const video = renderMessage({ type: 'video', payload: { url: 'http://www.images.com/video.mp4' } });
    assert.deepEqual(
      [video.body, video.sizeOf],
      [
        { type: 'video', media: 'http://www.images.com/video.mp4', min_api_version: 1 },
        { url: 'http://www.images.com/video.mp4', kind: 'video' },
      ],
    );
    // Keyboard reference: PascalCase keys, `reply` buttons carry their ActionBody.
    const keyboard = renderMessage({ type: 'text', payload: 'Size?', quick_replies: [{ type: 'text', title: 'Small', payload: 'SIZE_S' }] }).body
      .keyboard as any;
    assert.equal(keyboard.Type, 'keyboard');
    assert.deepEqual(
      keyboard.Buttons.map((b: any) => [b.ActionType, b.ActionBody, b.Text]),
      [['reply', 'SIZE_S', 'Small']],
    );
    assert.equal(messageFailedCode('appmsg', statusFailure(6, 'notSubscribed').code), 2);
    assert.equal(messageFailedCode('appmsg', statusFailure(5, 'receiverNotRegistered').code), 3);
    assert.equal(statusFailure(12, 'tooManyRequests').retryable, true);
  });
});

describe('appmsg conformance: platform calls and the HTTP route', () => {
  let ref: ReferenceServer;
  let s: TestServer;
  let hook: WebhookReceiver;
  let channelId = '';
  let sent = 0;
  /** When set, every send is answered with this token (a platform repeating itself). */
  let repeatedToken: bigint | undefined;

  before(async () => {
    ref = await startReferenceServer();
    ref.routes.push(
      // get_account_info reference response.
      on('POST', /\/pa\/get_account_info$/, {
        body: {
          status: 0,
          status_message: 'ok',
          id: 'pa:75346594275468546724',
          name: 'account name',
          uri: 'accountUri',
          icon: 'http://example.com',
          background: 'http://example.com',
          category: 'category',
          subcategory: 'sub category',
          location: { lon: 0.1, lat: 0.2 },
          country: 'UK',
          webhook: 'https://my.site.com',
          event_types: ['delivered', 'seen'],
          subscribers_count: 35,
          members: [{ id: '01234567890A=', name: 'my name', avatar: 'http://example.com', role: 'admin' }],
        },
      }),
      on('POST', /\/pa\/set_webhook$/, {
        body: { status: 0, status_message: 'ok', event_types: ['delivered', 'seen', 'failed', 'subscribed', 'unsubscribed', 'conversation_started'] },
      }),
      // send_message reference response: the token as a bare 64-bit number (one per message).
      on('POST', /\/pa\/send_message$/, () => ({
        body: `{"status":0,"status_message":"ok","message_token":${repeatedToken ?? 5741311803571721087n + BigInt(sent++)},"chat_hostname":"SN-CHAT-05_","billing_status":1}`,
      })),
      // The file server of a video: its size from HEAD only.
      on('HEAD', /\/media\/video\.mp4$/, { body: '', headers: { 'content-type': 'video/mp4', 'content-length': '10000' } }),
      on('GET', /\/media\/video\.mp4$/, { status: 500, body: {} }),
    );
    s = await startTestServer('sqlite', {
      workers: true,
      env: {
        APPMSG_API_URL: ref.url,
        APPMSG_AUTH_HEADER: AUTH_HEADER,
        APPMSG_SIGNATURE_HEADER: SIGNATURE_HEADER,
        PLATFORM_TIMEOUT_MS: '1500',
        WEBHOOK_RETRY_SCHEDULE: '1,1,1',
      },
    });
    hook = await startWebhookReceiver();
    const made = await s.api.post('/v1/channels', { type: 'appmsg', name: 'Reference bot', webhook: { url: hook.url }, appmsg: { access_token: SDK_TOKEN } });
    assert.equal(made.status, 201, made.text);
    hook.secret = made.body.webhook.secret;
    channelId = made.body.id;
  });
  after(async () => {
    await s?.close();
    await Promise.allSettled([ref?.close(), hook?.close()]);
  });

  test('connecting: get_account_info, then set_webhook with the reference body, each with the auth header', () => {
    const [info, set] = ref.requests;
    assert.deepEqual([info?.path, set?.path], ['/pa/get_account_info', '/pa/set_webhook']);
    for (const r of [info!, set!]) assert.equal(r.headers[AUTH_HEADER.toLowerCase()], SDK_TOKEN);
    assert.deepEqual(set!.json, {
      url: `${s.baseUrl}/inbound/${channelId}/events`,
      event_types: ['delivered', 'seen', 'failed', 'subscribed', 'unsubscribed', 'conversation_started'],
      send_name: true,
      send_photo: true,
    });
  });

  test('the HTTP route: the SDK vector as header and as sig, a tampered body refused, a reference message reported, replies as the reference', async () => {
    const route = `${s.baseUrl}/inbound/${channelId}/events`;
    const post = (body: string, headers: Record<string, string>, query = '') =>
      fetch(`${route}${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    assert.equal((await post(SDK_BODY, { [SIGNATURE_HEADER]: SDK_SIGNATURE })).status, 200);
    assert.equal((await post(SDK_BODY, {}, `?sig=${SDK_SIGNATURE}`)).status, 200);
    // A channel's own URL does not tell whether the channel exists: a failed check is 404.
    assert.equal((await post(SDK_BODY.replace('4977', '4978'), { [SIGNATURE_HEADER]: SDK_SIGNATURE })).status, 404);
    assert.equal((await post(MESSAGE_CALLBACK, { [SIGNATURE_HEADER]: sign(MESSAGE_CALLBACK) })).status, 200);
    const received = await hook.waitFor('message_received');
    assert.deepEqual(received.data.content, { type: 'text', payload: 'a message to the service' });

    const contact = { id: received.data.contact.id };
    const text = await s.api.post('/v1/messages', { channel: { id: channelId }, contact, content: { type: 'text', payload: 'Hello world!' } });
    assert.equal(text.status, 201, text.text);
    const sends = () => ref.requests.filter((r) => r.path === '/pa/send_message');
    assert.deepEqual(sends().at(-1)!.json, {
      receiver: '01234567890A=',
      min_api_version: 1,
      sender: { name: 'account name', avatar: 'http://example.com' },
      type: 'text',
      text: 'Hello world!',
    });
    const video = await s.api.post('/v1/messages', {
      channel: { id: channelId },
      contact,
      content: { type: 'video', payload: { url: `${ref.url}/media/video.mp4` } },
    });
    assert.equal(video.status, 201, video.text);
    assert.deepEqual(sends().at(-1)!.json, {
      receiver: '01234567890A=',
      min_api_version: 1,
      sender: { name: 'account name', avatar: 'http://example.com' },
      type: 'video',
      media: `${ref.url}/media/video.mp4`,
      size: 10000,
    });
    assert.deepEqual(
      ref.requests.filter((r) => r.path === '/media/video.mp4').map((r) => r.method),
      ['HEAD'],
      'the size is asked; the video is not downloaded',
    );
  });

  test('a platform answering a message token the channel has stored already: the message is kept all the same, without it', async () => {
    const received = await hook.waitFor('message_received');
    const contact = { id: received.data.contact.id };
    repeatedToken = 7000000000000000001n;
    try {
      const first = await s.api.post('/v1/messages', { channel: { id: channelId }, contact, content: { type: 'text', payload: 'once' } });
      const second = await s.api.post('/v1/messages', { channel: { id: channelId }, contact, content: { type: 'text', payload: 'again' } });
      assert.deepEqual([first.status, second.status], [201, 201], second.text);
      for (const [sentMessage, text] of [
        [first, 'once'],
        [second, 'again'],
      ] as const) {
        const stored = await s.api.get(`/v1/messages/${String(sentMessage.body.id)}`);
        assert.equal(stored.status, 200);
        assert.deepEqual(stored.body.content, { type: 'text', payload: text });
      }
    } finally {
      repeatedToken = undefined;
    }
  });
});
