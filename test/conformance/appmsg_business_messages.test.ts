import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appmsgBusinessSettings } from '../../src/connectors/appmsg_business_messages/config.js';
import { createAppmsgBusinessConnector } from '../../src/connectors/appmsg_business_messages/connector.js';
import { readEnv } from '../../src/lib/env-settings.js';
import type { ChannelContext, InboundCall, OutboundMessage, Recipient } from '../../src/connectors/connector.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { eventually } from '../helpers/waits.js';

/**
 * The business-messages partner API checked without its stand-in. The vendor's document is
 * partner-confidential, so the shapes below are transcribed from public third-party material
 * (the connector's README lists it with its confidence):
 * - [A] an open-source workflow-automation node for the partner API (spec v11.3): its request
 *   builder per message type, its type table (which types are promotional), its limits, and the
 *   example response `{"status":0,"seq":123456,"message_token":"5379697806260881548"}`;
 * - [B] a load-test emulator of the partner API: after each send it posts to the partner's
 *   delivery-report URL `{"message_token":"<token>","message_status":0,"message_time":<ms>,
 *   "phone_number":"380504490154","service_id":3100}` and the same with `message_status` 1 (seen);
 * - [C] a second emulator of the partner API: `message_status` 0 delivered, 1 seen, 2 expired,
 *   4 subscribe, 5 unsubscribe, with `message_token`, `service_id`, `phone_number`, `message_time`;
 * - [D] messaging aggregators that relay the platform: delivered / seen / expired per message,
 *   and user replies with a text (and the data of the message replied to).
 * No public source shows a reply's exact JSON: the reply below is the shape the connector takes
 * on inference ([INF]): the status callback's fields plus a `message` object with `text` and
 * `tracking_data`, as the same vendor's bot API names them.
 */

const SERVICE_ID = 3100;
const PHONE = '380504490154';
/** The example message token of [A]. */
const TOKEN = '5379697806260881548';

/** The connector with the settings it ships with (no environment variable set). */
function shippedConnector(apiUrl: string) {
  const settings = appmsgBusinessSettings.parse(readEnv({}, appmsgBusinessSettings.env), { standInUrl: () => apiUrl });
  return createAppmsgBusinessConnector({ ...settings, apiUrl, timeoutMs: 5_000, mediaAllowlist: ['127.0.0.1'] });
}

const SECRET = 'key-of-the-channel-callback-url';
const channel: ChannelContext = {
  id: '7',
  type: 'appmsg_business_messages',
  mode: 'production',
  config: { sender_id: String(SERVICE_ID) },
  secrets: { callback_secret: SECRET },
};

/** A callback as the platform posts it to the URL it was given: JSON, no signature header. */
function callback(body: string): InboundCall {
  return {
    method: 'POST',
    endpoint: 'callbacks',
    url: `https://parley.example/v1/inbound/7/callbacks?token=${SECRET}`,
    headers: { 'content-type': 'application/json' },
    query: { token: SECRET },
    rawBody: Buffer.from(body),
  };
}

// [B] and [C]: the status callbacks, transcribed (the token quoted as [B] sends it).
const statusBody = (status: number, token = `"${TOKEN}"`) =>
  `{"message_token":${token},"message_status":${status},"message_time":1700000000000,"phone_number":"${PHONE}","service_id":${SERVICE_ID}}`;

describe('appmsg_business_messages callbacks as public emulators of the partner API send them (parser)', () => {
  const inbound = shippedConnector('http://127.0.0.1:9').roles.channelInbound;
  const parse = (body: string) => {
    const parsed = inbound.parse(callback(body), channel);
    assert.ok(!(parsed instanceof Promise));
    assert.ok(parsed.ok, JSON.stringify(parsed));
    return parsed;
  };

  test('delivered (0), seen (1) and expired (2), by the message token; the token as text and as a 19-digit number', () => {
    for (const token of [`"${TOKEN}"`, TOKEN]) {
      const delivered = parse(statusBody(0, token));
      assert.deepEqual(delivered.events, [
        {
          kind: 'status',
          user: { phoneNumber: `+${PHONE}` },
          at: 1700000000000,
          eventKey: `${TOKEN}:delivered`,
          report: { messageExternalId: TOKEN, status: 'delivered', final: true, platformCode: '0' },
        },
      ]);
      assert.deepEqual(parse(statusBody(1, token)).events, [
        { kind: 'read', user: { phoneNumber: `+${PHONE}` }, at: 1700000000000, watermark: 1700000000000, messageExternalId: TOKEN },
      ]);
      const expired = parse(statusBody(2, token)).events[0];
      assert.ok(expired?.kind === 'status');
      assert.deepEqual(expired.report, { messageExternalId: TOKEN, status: 'expired', final: true, platformCode: '2' });
    }
  });

  test('unsubscribe (5) is an opt-out; subscribe (4) changes nothing; answered 200 with a JSON body', () => {
    const unsubscribe = parse(`{"message_status":5,"message_time":1700000000000,"phone_number":"${PHONE}","service_id":${SERVICE_ID}}`);
    assert.deepEqual(unsubscribe.events, [
      { kind: 'opt_out', user: { phoneNumber: `+${PHONE}` }, at: 1700000000000, reason: 'unsubscribed', eventKey: `unsubscribe:+${PHONE}:1700000000000` },
    ]);
    const subscribe = parse(`{"message_status":4,"message_time":1700000000000,"phone_number":"${PHONE}","service_id":${SERVICE_ID}}`);
    assert.deepEqual(subscribe.events, []);
    assert.equal(subscribe.reply?.contentType, 'application/json');
  });

  test("a reply [INF]: the user's number, the reply's own token, its text (a list choice matched to its quick reply)", () => {
    const reply = parse(
      `{"message_token":"5379697806260881999","phone_number":"${PHONE}","message_time":1700000000500,"service_id":${SERVICE_ID},"message":{"text":"Small","tracking_data":"42"}}`,
    );
    assert.deepEqual(reply.events, [
      {
        kind: 'message',
        user: { phoneNumber: `+${PHONE}` },
        at: 1700000000500,
        externalId: '5379697806260881999',
        content: { type: 'text', text: 'Small', matchQuickReplies: true },
      },
    ]);
  });

  test('refused: no token or a wrong one in the URL, another sender id; the emulators send no signature and none is asked', () => {
    const wrong = inbound.parse({ ...callback(statusBody(0)), query: { token: 'not-the-key' } }, channel);
    assert.ok(!(wrong instanceof Promise) && !wrong.ok && wrong.status === 403);
    const none = inbound.parse({ ...callback(statusBody(0)), query: {} }, channel);
    assert.ok(!(none instanceof Promise) && !none.ok);
    const foreign = inbound.parse(callback(statusBody(0).replace(`"service_id":${SERVICE_ID}`, '"service_id":3101')), channel);
    assert.ok(!(foreign instanceof Promise) && !foreign.ok && foreign.status === 403);
  });
});

/** A fixture of the partner API's send_message (not the stand-in): it records each body and answers as [A]'s example response does. */
interface PartnerFixture {
  url: string;
  bodies: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

async function startPartnerFixture(): Promise<PartnerFixture> {
  const bodies: Array<Record<string, unknown>> = [];
  let next = BigInt(TOKEN);
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => resolve(text));
    });
  const server: Server = createServer((req, res) => {
    if (req.method === 'HEAD') {
      // The video's host: the platform needs its size from a Content-Length [A].
      return void res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': '1048576' }).end();
    }
    void read(req).then((text) => {
      const body = JSON.parse(text) as Record<string, unknown>;
      bodies.push(body);
      const token = String(next++);
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"status":0,"seq":${String(body.seq)},"message_token":"${token}"}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("appmsg_business_messages send bodies compared with the public integration's requests", () => {
  let fixture: PartnerFixture;
  before(async () => {
    fixture = await startPartnerFixture();
  });
  after(async () => fixture.close());

  const to: Recipient = { id: '1', externalId: null, phoneNumber: `+${PHONE}`, userRef: null, email: null, name: null };
  /** What the connector sends for a message, and the token it read from the answer. */
  async function sent(message: OutboundMessage, on: ChannelContext = channel) {
    const sender = shippedConnector(fixture.url).roles.sender;
    const receipt = await sender.send(on, to, message);
    assert.ok(receipt.ok, JSON.stringify(receipt));
    return { body: fixture.bodies.at(-1)!, token: receipt.value.externalIds[0] };
  }
  // [A] builds every request as {service_id, dest, seq, label, type, ...}: service_id a number, dest the digits.
  const head = (id: number, label: 'transaction' | 'promotion', type: number) => ({ service_id: SERVICE_ID, dest: PHONE, seq: id, label, type });
  const media = (name: string) => `${fixture.url}/media/${name}`;

  test('text as a transactional template (1702): templateId, templateLang, templateParams, no message object; the token read as text', async () => {
    const { body, token } = await sent({
      id: '101',
      content: { type: 'text', payload: 'Your code is 1234' },
      metadata: { template_id: '2c017482-otp', template_lang: 'en', template_params: { pin: '1234' } },
    });
    assert.deepEqual(body, { ...head(101, 'transaction', 1702), templateId: '2c017482-otp', templateLang: 'en', templateParams: { pin: '1234' } });
    assert.equal(token, TOKEN, "[A]'s example response");
  });

  test('plain text (206) on a sender id that may still send it: #txt and #tracking_data', async () => {
    const legacy = { ...channel, config: { ...channel.config, legacy_plain_text: true } };
    const { body } = await sent({ id: '102', content: { type: 'text', payload: 'Summer sale is live!' } }, legacy);
    assert.deepEqual(body, { ...head(102, 'transaction', 206), message: { '#txt': 'Summer sale is live!', '#tracking_data': '102' } });
  });

  test('image (207, promotional): #img and #tracking_data', async () => {
    const { body } = await sent({ id: '103', content: { type: 'image', payload: { url: 'https://example.com/promo.png' } } });
    assert.deepEqual(body, { ...head(103, 'promotion', 207), message: { '#img': 'https://example.com/promo.png', '#tracking_data': '103' } });
  });

  test('image with text and a button (208, promotional): #txt, #img, #caption, #action', async () => {
    const { body } = await sent({
      id: '104',
      content: {
        type: 'structure',
        payload: {
          text: 'Summer sale is live!',
          image_url: 'https://example.com/promo.png',
          buttons: [{ type: 'url', title: 'Shop now', payload: 'https://example.com/sale' }],
        },
      },
    });
    assert.deepEqual(body, {
      ...head(104, 'promotion', 208),
      message: {
        '#txt': 'Summer sale is live!',
        '#img': 'https://example.com/promo.png',
        '#caption': 'Shop now',
        '#action': 'https://example.com/sale',
        '#tracking_data': '104',
      },
    });
  });

  test("video (230, promotional): the video's URL in #action, #thumbnail, file_size and duration", async () => {
    const { body } = await sent({
      id: '105',
      content: { type: 'video', payload: { url: media('clip.mp4') } },
      metadata: { video_duration: 42, video_thumbnail: 'https://example.com/thumb.jpg' },
    });
    assert.deepEqual(body, {
      ...head(105, 'promotion', 230),
      file_size: 1048576,
      duration: 42,
      message: { '#action': media('clip.mp4'), '#thumbnail': 'https://example.com/thumb.jpg', '#tracking_data': '105' },
    });
  });

  test('carousel (901, promotional): the message #txt, items {title, imageUrl, primaryButton, secondaryButton?}', async () => {
    const buy = { type: 'url' as const, title: 'Buy', payload: 'https://example.com/b1' };
    const info = { type: 'url' as const, title: 'More info', payload: 'https://example.com/i2' };
    const { body } = await sent({
      id: '106',
      content: {
        type: 'structure',
        payload: [
          { title: 'Red shoes', image_url: 'https://example.com/1.png', buttons: [buy] },
          { title: 'Blue shoes', image_url: 'https://example.com/2.png', buttons: [buy, info] },
        ],
      },
      metadata: { carousel_text: 'New arrivals' },
    });
    assert.deepEqual(body, {
      ...head(106, 'promotion', 901),
      message: { '#txt': 'New arrivals', '#tracking_data': '106' },
      carousel: {
        items: [
          { title: 'Red shoes', imageUrl: 'https://example.com/1.png', primaryButton: { label: 'Buy', actionUrl: 'https://example.com/b1' } },
          {
            title: 'Blue shoes',
            imageUrl: 'https://example.com/2.png',
            primaryButton: { label: 'Buy', actionUrl: 'https://example.com/b1' },
            secondaryButton: { label: 'More info', actionUrl: 'https://example.com/i2' },
          },
        ],
      },
    });
  });

  test('list / quick replies (801, transactional): the title in #txt, survey.options the choices', async () => {
    const { body } = await sent({
      id: '107',
      content: {
        type: 'text',
        payload: 'How was your delivery?',
        quick_replies: ['Great', 'Okay', 'Bad'].map((title) => ({ type: 'text' as const, title, payload: title.toUpperCase() })),
      },
    });
    assert.deepEqual(body, {
      ...head(107, 'transaction', 801),
      message: { '#txt': 'How was your delivery?', '#tracking_data': '107' },
      survey: { options: ['Great', 'Okay', 'Bad'], list_message_ui_type: 0 },
    });
  });

  test('file (220, transactional): file_type, #fileName at most 25 characters, #action', async () => {
    const { body } = await sent({ id: '108', content: { type: 'file', payload: { url: 'https://example.com/docs/invoice-1042.pdf' } } });
    assert.deepEqual(body, {
      ...head(108, 'transaction', 220),
      file_type: 'pdf',
      message: { '#action': 'https://example.com/docs/invoice-1042.pdf', '#fileName': 'invoice-1042.pdf', '#tracking_data': '108' },
    });
  });
});

describe('appmsg_business_messages callbacks through the HTTP route (sqlite)', () => {
  let s: TestServer;
  let fixture: PartnerFixture;
  before(async () => {
    fixture = await startPartnerFixture();
    s = await startTestServer('sqlite', { workers: true, env: { APPMSG_BUSINESS_API_URL: fixture.url } });
  });
  after(async () => {
    await s?.close();
    await fixture?.close();
  });

  test('each delivery status, seen, expiry and a reply, posted as the platform posts them to the channel URL', async () => {
    const made = await s.api.post('/v1/channels', { type: 'appmsg_business_messages', name: 'B', appmsg_business_messages: { sender_id: String(SERVICE_ID) } });
    assert.equal(made.status, 201, made.text);
    const url = made.body.appmsg_business_messages.callback_url as string;
    const post = (body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const template = { template_id: 'order_shipped', template_lang: 'en' };
    const send = async (payload: string) => {
      const res = await s.api.post('/v1/messages', {
        channel: { id: made.body.id },
        contact: { phone_number: `+${PHONE}` },
        content: { type: 'text', payload },
        metadata: template,
      });
      assert.equal(res.status, 201, res.text);
      const id = res.body.id as string;
      await eventually(async () => ((await s.api.get(`/v1/messages/${id}`)).body.status === 'sent' ? true : undefined), 10_000, 'sent');
      const token = await eventually(
        async () => {
          const index = fixture.bodies.findIndex((b) => String(b.seq) === id);
          return index >= 0 ? String(BigInt(TOKEN) + BigInt(index)) : undefined;
        },
        10_000,
        'taken',
      );
      return { id, token };
    };
    const message = async (id: string) => (await s.api.get(`/v1/messages/${id}`)).body;

    const first = await send('Your order has shipped.');
    assert.equal(first.token, TOKEN);
    const delivered = await post(statusBody(0, `"${first.token}"`));
    assert.equal(delivered.status, 200, await delivered.text());
    await eventually(async () => ((await message(first.id)).status === 'delivered' ? true : undefined), 10_000, 'delivered');
    assert.equal((await post(statusBody(1, first.token))).status, 200, 'the token as a number');
    await eventually(async () => ((await message(first.id)).read ? true : undefined), 10_000, 'read');

    const second = await send('Your parcel waits for you.');
    assert.equal((await post(statusBody(2, `"${second.token}"`))).status, 200);
    const failed = await eventually(async () => ((await message(second.id)).status === 'failed' ? await message(second.id) : undefined), 10_000, 'expired');
    assert.equal(failed.error.code, 4);

    const reply = await post(
      `{"message_token":"5379697806260889999","phone_number":"${PHONE}","message_time":${Date.now()},"service_id":${SERVICE_ID},"message":{"text":"Thank you!","tracking_data":"${first.id}"}}`,
    );
    assert.equal(reply.status, 200);
    const contactId = (await message(first.id)).contact.id as string;
    const received = await eventually(
      async () => {
        const list = (await s.api.get(`/v1/channels/${made.body.id}/contacts/${contactId}/messages`)).body as Array<{
          direction: string;
          content: { payload: string };
        }>;
        return list.find((m) => m.direction === 'received');
      },
      10_000,
      'the reply',
    );
    assert.equal(received.content.payload, 'Thank you!');

    // Without the token the platform was given: the uniform 404, nothing stored.
    const keyless = await fetch(url.replace(/\?token=.*$/, ''), { method: 'POST', headers: { 'content-type': 'application/json' }, body: statusBody(0) });
    assert.equal(keyless.status, 404);
  });
});
