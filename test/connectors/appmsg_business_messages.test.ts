import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { eventually } from '../helpers/waits.js';
import { createAppmsgBusinessMessagesStandIn } from '../../sandbox/appmsg_business_messages/server.js';
import { http, OffsetClock, startMediaServer, type JsonAnswer, type MediaServer } from './helpers/harness.js';

const SHARED_SENDER = '9999';
const TYPE = 'appmsg_business_messages';

interface Made {
  id: string;
  senderId: number;
  hook: WebhookReceiver;
  body: any;
}

/** One service against the stand-in: channels whose sender id calls back to the channel's own URL. */
function setup(dialect: Parameters<typeof startTestServer>[0], options: { clock?: OffsetClock; env?: Record<string, string> } = {}) {
  const state = {
    s: undefined as unknown as TestServer,
    base: '',
    media: undefined as unknown as MediaServer,
    hooks: [] as WebhookReceiver[],
    nextSender: 4000,
  };
  const ab = createAppmsgBusinessMessagesStandIn(options.clock ? { now: () => options.clock!.now() } : {});
  before(async () => {
    state.base = await ab.listen(0);
    state.media = await startMediaServer();
    state.s = await startTestServer(dialect, {
      workers: true,
      ...(options.clock ? { clock: options.clock } : {}),
      env: {
        APPMSG_BUSINESS_API_URL: state.base,
        APPMSG_BUSINESS_SHARED_SENDER_ID: SHARED_SENDER,
        MEDIA_ALLOWLIST: '127.0.0.1',
        PLATFORM_TIMEOUT_MS: '1500',
        WEBHOOK_RETRY_SCHEDULE: '1,1,1',
        ...options.env,
      },
    });
  });
  after(async () => {
    await state.s?.close();
    await Promise.allSettled([ab.close(), state.media?.close(), ...state.hooks.map((h) => h.close())]);
  });

  const sandbox = (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<JsonAnswer> =>
    http(method, `${state.base}/_sandbox${path}`, body);

  /**
   * A channel with its webhook receiver; its sender id exists on the stand-in with the channel's
   * callback URL (its token included), and may send plain text (206) when the channel says so.
   */
  async function connect(extra: Record<string, unknown> = {}, mode?: string): Promise<Made> {
    const hook = await startWebhookReceiver();
    state.hooks.push(hook);
    const senderId = state.nextSender++;
    const res = await state.s.api.post('/v1/channels', {
      type: TYPE,
      name: 'Business',
      ...(mode ? { mode } : {}),
      webhook: { url: hook.url },
      appmsg_business_messages: { sender_id: String(senderId), ...extra },
    });
    assert.equal(res.status, 201, res.text);
    hook.secret = res.body.webhook.secret;
    const own = res.body.appmsg_business_messages;
    const made = await sandbox('/services', { service_id: senderId, callback_url: own.callback_url, plain_text_allowed: extra.legacy_plain_text === true });
    assert.equal(made.status, 201, made.text);
    return { id: res.body.id, senderId, hook, body: res.body };
  }

  async function user(phone: string, fields: Record<string, unknown> = {}): Promise<void> {
    const res = await sandbox('/users', { phone, ...fields });
    assert.equal(res.status, 201, res.text);
  }

  const send = (channel: string, phone: string, content: unknown, metadata?: Record<string, unknown>) =>
    state.s.api.post('/v1/messages', { channel: { id: channel }, contact: { phone_number: phone }, content, ...(metadata ? { metadata } : {}) });

  /** What the stand-in took for a message of ours (by its `seq`, our message id). */
  async function taken(serviceId: number, messageId: string): Promise<any> {
    return eventually(
      async () => {
        const list = (await sandbox(`/messages?service_id=${serviceId}`)).body.messages as any[];
        return list.find((m) => String(m.seq) === messageId);
      },
      10_000,
      `message ${messageId} at the stand-in`,
    );
  }

  const messageOf = async (id: string) => (await state.s.api.get(`/v1/messages/${id}`)).body;

  return { state, sandbox, connect, user, send, taken, messageOf };
}

const TEXT = (payload: string) => ({ type: 'text', payload });
/** A channel whose sender id was made before type 206 closed: it may send plain text. */
const LEGACY = { legacy_plain_text: true };

for (const { dialect, skip, test } of await dialects({
  postgresSmoke: [
    'a text is sent by phone number and its delivery, reading and a reply are reported',
    'expiry the platform never reports: the service fails the message itself after its TTL (sent, or never sent)',
  ],
})) {
  describe(`appmsg_business_messages connector over real HTTP (${dialect})`, { skip }, () => {
    const t = setup(dialect, { env: { SHARED_MODE_MESSAGE_LIMIT: '2' } });

    test('the channel: numeric sender id, a default TTL within 30 s to 14 days, its callback URL and secret', async () => {
      const { s } = t.state;
      const made = await t.connect({ default_message_ttl: 'PT20M' });
      const own = made.body.appmsg_business_messages;
      assert.equal(own.sender_id, String(made.senderId));
      assert.equal(own.default_message_ttl, 'PT20M');
      assert.match(own.callback_secret, /^[A-Za-z0-9_-]{32}$/);
      assert.equal(own.callback_url, `${s.baseUrl}/inbound/${made.id}/callbacks?token=${own.callback_secret}`);
      assert.equal(own.legacy_plain_text, false, 'templates unless the sender id may still send type 206');
      assert.deepEqual((await s.api.get(`/v1/channels/${made.id}`)).body.appmsg_business_messages, own);

      const body = (ttl: unknown, sender = '1234') => ({ type: TYPE, name: 'B', appmsg_business_messages: { sender_id: sender, default_message_ttl: ttl } });
      for (const ok of ['PT30S', 'P14D', 'P1DT12H', 'P2W']) assert.equal((await s.api.post('/v1/channels', body(ok))).status, 201, ok);
      for (const bad of ['PT29S', 'P14DT1S', 'P3W', 'P1M', '20 minutes', 'PT']) {
        const res = await s.api.post('/v1/channels', body(bad));
        assert.equal(res.status, 422, `${bad}: ${res.text}`);
        assert.equal(res.body.errors[0].field, 'appmsg_business_messages.default_message_ttl', bad);
      }
      const named = await s.api.post('/v1/channels', body('PT1M', 'Shop'));
      assert.equal(named.status, 422);
      assert.equal(named.body.errors[0].field, 'appmsg_business_messages.sender_id');

      const tooShort = await s.api.patch(`/v1/channels/${made.id}`, { appmsg_business_messages: { default_message_ttl: 'PT10S' } });
      assert.equal(tooShort.status, 422, tooShort.text);
      assert.equal(tooShort.body.errors[0].field, 'appmsg_business_messages.default_message_ttl');
      const longer = await s.api.patch(`/v1/channels/${made.id}`, { appmsg_business_messages: { default_message_ttl: 'PT1H' } });
      assert.equal(longer.status, 200, longer.text);
      assert.equal(longer.body.appmsg_business_messages.default_message_ttl, 'PT1H');
      assert.equal(longer.body.appmsg_business_messages.callback_secret, own.callback_secret, 'the secret is kept');

      // Modes: production, test and shared only.
      const mobileOnly = await s.api.post('/v1/channels', { ...body('PT1M'), mode: 'trial' });
      assert.equal(mobileOnly.status, 422);
      assert.equal(mobileOnly.body.errors[0].field, 'mode');
    });

    test('test mode stores and echoes a message and never sends it', async () => {
      const made = await t.connect({}, 'test');
      const res = await t.send(made.id, '+420601100100', TEXT('not sent'));
      assert.equal(res.status, 201, res.text);
      await made.hook.waitFor('message_echo');
      const sent = (await t.sandbox(`/messages?service_id=${made.senderId}`)).body.messages;
      assert.equal(sent.length, 0);
      const jobs = await t.state.s.runtime.store.db.selectFrom('jobs').select('id').where('channel_id', '=', Number(made.id)).execute();
      assert.equal(jobs.length, 0);
    });

    test('shared mode sends under the common sender id, up to the configured count', async () => {
      const made = await t.connect(LEGACY, 'shared');
      await t.sandbox('/services', { service_id: Number(SHARED_SENDER) });
      await t.user('420601200200');
      await t.sandbox(`/services/${SHARED_SENDER}`, { plain_text_allowed: true }, 'PATCH');
      const usage = async () => (await t.state.s.api.get(`/v1/channels/${made.id}`)).body.shared_mode;
      assert.deepEqual(await usage(), { messages_sent: 0, message_limit: 2 });
      const first = await t.send(made.id, '+420601200200', TEXT('one'));
      const second = await t.send(made.id, '+420601200200', TEXT('two'));
      assert.equal(first.status, 201, first.text);
      assert.equal(second.status, 201, second.text);
      const third = await t.send(made.id, '+420601200200', TEXT('three'));
      assert.equal(third.status, 422, third.text);
      assert.equal(third.body.errors[0].field, 'channel.id');
      assert.match(third.body.errors[0].message, /sent the 2 messages its shared mode allows/);
      assert.deepEqual(await usage(), { messages_sent: 2, message_limit: 2 }, 'the count on the channel');
      const production = await t.connect();
      assert.equal((await t.state.s.api.get(`/v1/channels/${production.id}`)).body.shared_mode, undefined);
      const atPlatform = await t.taken(Number(SHARED_SENDER), first.body.id);
      assert.equal(atPlatform.serviceId, Number(SHARED_SENDER));
      assert.equal((await t.sandbox(`/messages?service_id=${made.senderId}`)).body.messages.length, 0, 'nothing under the channel’s own id');
    });

    test('a text is sent by phone number and its delivery, reading and a reply are reported', async () => {
      const { s } = t.state;
      const made = await t.connect({ default_message_ttl: 'PT20M', ...LEGACY });
      await t.user('420601300300');
      const res = await t.send(made.id, '+420 601 300 300', TEXT('Your order shipped.'));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.contact.phone_number, '+420601300300');
      const atPlatform = await t.taken(made.senderId, res.body.id);
      assert.equal(atPlatform.dest, '420601300300');
      assert.equal(atPlatform.type, 206);
      assert.equal(atPlatform.label, 'transaction');
      assert.equal(atPlatform.body.message['#txt'], 'Your order shipped.');
      assert.equal(atPlatform.body.message['#tracking_data'], res.body.id);
      assert.ok(atPlatform.ttl > 1190 && atPlatform.ttl <= 1200, `the channel's TTL, less what passed: ${atPlatform.ttl}`);
      await eventually(async () => ((await t.messageOf(res.body.id)).status === 'sent' ? true : undefined), 10_000, 'sent');

      const delivered = await t.sandbox(`/messages/${atPlatform.token}/status`, { status: 'delivered' });
      assert.equal(delivered.body.webhook?.status, 200, delivered.text);
      const d = await made.hook.waitFor('messages_delivered');
      assert.deepEqual(d.data.messages, [{ id: res.body.id }]);
      assert.equal((await t.messageOf(res.body.id)).status, 'delivered');

      const seen = await t.sandbox(`/messages/${atPlatform.token}/status`, { status: 'seen' });
      assert.equal(seen.body.webhook?.status, 200, seen.text);
      const read = await made.hook.waitFor('messages_read');
      assert.equal(read.data.contact.id, res.body.contact.id);
      assert.ok((await t.messageOf(res.body.id)).read);

      const reply = await t.sandbox(`/services/${made.senderId}/users/420601300300/reply`, { text: 'Thanks!' });
      assert.equal(reply.body.webhook?.status, 200, reply.text);
      const received = await made.hook.waitFor('message_received');
      assert.equal(received.data.content.payload, 'Thanks!');
      assert.equal(received.data.contact.id, res.body.contact.id);
      assert.equal(received.data.contact.phone_number, '+420601300300');
      // The platform repeats the call: nothing changes twice.
      await t.sandbox(`/webhooks/${reply.body.webhook.delivery_id}/redeliver`, {});
      await t.sandbox(`/webhooks/${delivered.body.webhook.delivery_id}/redeliver`, {});
      const list = await s.api.get(`/v1/channels/${made.id}/contacts/${res.body.contact.id}/messages`);
      assert.equal(list.body.length, 2);
      assert.equal(made.hook.events.filter((e) => e.event === 'message_received').length, 1);
      assert.equal(made.hook.events.filter((e) => e.event === 'messages_delivered').length, 1);
    });

    test("callbacks without the channel's key, or of another sender id, store nothing", async () => {
      const { s } = t.state;
      const made = await t.connect();
      await t.user('420601400400');
      const url = made.body.appmsg_business_messages.callback_url as string;
      // The platform was given the URL with another token than the channel holds: the same 404 as an unknown channel.
      await t.sandbox(`/services/${made.senderId}`, { callback_url: url.replace(/token=.*$/, 'token=another-token-of-nobody') }, 'PATCH');
      const forged = await t.sandbox(`/services/${made.senderId}/users/420601400400/reply`, { text: 'forged' });
      assert.equal(forged.body.webhook?.status, 404, forged.text);
      const bare = await fetch(`${s.baseUrl}/inbound/${made.id}/callbacks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          message_token: '5379697806260881548',
          phone_number: '420601400400',
          message_time: Date.now(),
          service_id: made.senderId,
          message: { text: 'no key' },
        }),
      });
      assert.equal(bare.status, 404);
      // The right key, but for another channel's sender id.
      const other = await t.connect();
      await t.sandbox(`/services/${made.senderId}`, { callback_url: other.body.appmsg_business_messages.callback_url }, 'PATCH');
      const foreign = await t.sandbox(`/services/${made.senderId}/users/420601400400/reply`, { text: 'foreign' });
      assert.equal(foreign.body.webhook?.status, 404, foreign.text);
      for (const id of [made.id, other.id]) assert.equal((await s.api.get(`/v1/channels/${id}/contacts`)).body.length, 0);
      assert.equal(made.hook.events.length + other.hook.events.length, 0);
    });

    test('a text goes out as the template its metadata names; plain text only where the sender id may still send type 206', async () => {
      const made = await t.connect();
      await t.user('420601450450');
      await t.sandbox('/templates', { template_id: 'order_shipped', lang: 'en', params: ['order'] });
      const metadata = { template_id: 'order_shipped', template_lang: 'en', template_params: { order: '1042' } };
      const res = await t.send(made.id, '+420601450450', TEXT('Your order 1042 has shipped.'), metadata);
      assert.equal(res.status, 201, res.text);
      const atPlatform = await t.taken(made.senderId, res.body.id);
      assert.equal(atPlatform.type, 1702);
      assert.equal(atPlatform.label, 'transaction');
      assert.deepEqual([atPlatform.body.templateId, atPlatform.body.templateLang, atPlatform.body.templateParams], ['order_shipped', 'en', { order: '1042' }]);
      assert.equal(atPlatform.body.message, undefined, "the template's text is the platform's");
      await eventually(async () => ((await t.messageOf(res.body.id)).status === 'sent' ? true : undefined), 10_000, 'sent');
      assert.equal((await t.messageOf(res.body.id)).content.payload, 'Your order 1042 has shipped.', 'what the service stores and shows');

      // A plain text on this channel is never sent: it fails with the reason.
      const plain = await t.send(made.id, '+420601450450', TEXT('plain'));
      assert.equal(plain.status, 201, plain.text);
      const failed = await made.hook.waitFor('message_failed', (e) => e.data.message.id === plain.body.id);
      assert.equal(failed.data.error.code, 1);
      assert.match((await t.messageOf(plain.body.id)).error.message, /type 206\) is closed/);
      assert.equal((await t.sandbox(`/messages?service_id=${made.senderId}`)).body.messages.length, 1);

      // Refused at Send Message, naming the field.
      const refused = async (content: unknown, meta: Record<string, unknown>, field: string) => {
        const r = await t.send(made.id, '+420601450450', content, meta);
        assert.equal(r.status, 422, `${field}: ${r.text}`);
        assert.equal(r.body.errors[0].field, field, r.text);
      };
      await refused(TEXT('x'), { template_id: 'order_shipped' }, 'metadata.template_lang');
      await refused(TEXT('x'), { template_lang: 'en' }, 'metadata.template_id');
      await refused(TEXT('x'), { template_id: 'has space', template_lang: 'en' }, 'metadata.template_id');
      await refused(TEXT('x'), { ...metadata, template_params: { order: 'y'.repeat(126) } }, 'metadata.template_params.order');
      await refused(TEXT('x'), { ...metadata, template_params: { order: 'see https://x.example' } }, 'metadata.template_params.order');
      await refused(TEXT('x'), { ...metadata, template_params: ['1042'] }, 'metadata.template_params');
      await refused({ type: 'image', payload: { url: t.state.media.url('photo.png') } }, metadata, 'metadata.template_id');
      const longest = await t.send(made.id, '+420601450450', TEXT('x'), { ...metadata, template_params: { order: 'y'.repeat(125) } });
      assert.equal(longest.status, 201, longest.text);
    });

    test("each of the platform's status codes becomes message_failed: blocked 2, not an app user 3, others 1", async () => {
      const made = await t.connect(LEGACY);
      await t.user('420601500001', { blocked_services: [made.senderId] });
      await t.user('420601500002', { registered: false });
      await t.user('420601500003', { suitable_device: false });
      const cases: Array<[string, number, RegExp]> = [
        ['+420601500001', 2, /status 8 SRVC_USER_BLOCKED/],
        ['+420601500002', 3, /status 9/],
        ['+420601500003', 1, /status 10 SRVC_NO_SUITABLE_DEVICE/],
        ['+420601500004', 3, /status 9/],
      ];
      for (const [phone, code, reason] of cases) {
        const res = await t.send(made.id, phone, TEXT('hello'));
        assert.equal(res.status, 201, res.text);
        const failed = await made.hook.waitFor('message_failed', (e) => e.data.message.id === res.body.id);
        assert.deepEqual(failed.data.error.code, code, phone);
        assert.equal(failed.data.contact.phone_number, phone);
        const message = await t.messageOf(res.body.id);
        assert.equal(message.status, 'failed');
        assert.match(message.error.message, reason);
      }
      // A platform failure is tried again; one that lasts (the sender blocked) fails with 1.
      await t.sandbox(`/services/${made.senderId}`, { blocked: true }, 'PATCH');
      await t.user('420601500005');
      const blocked = await t.send(made.id, '+420601500005', TEXT('hello'));
      const failed = await made.hook.waitFor('message_failed', (e) => e.data.message.id === blocked.body.id);
      assert.equal(failed.data.error.code, 1);
      assert.match((await t.messageOf(blocked.body.id)).error.message, /status 43 SRVC_SERVICE_BLOCKED/);
      await t.sandbox(`/services/${made.senderId}`, { blocked: false }, 'PATCH');
      await t.sandbox('/faults', { kind: 'server_error', endpoint: 'send_message', status: 503 });
      const retried = await t.send(made.id, '+420601500005', TEXT('after an outage'));
      const atPlatform = await t.taken(made.senderId, retried.body.id);
      assert.equal(atPlatform.body.message['#txt'], 'after an outage');
    });

    test('each content type is rendered as its message type, at its limits; what the platform cannot show is refused at Send Message', async () => {
      const made = await t.connect(LEGACY);
      const phone = '+420601600600';
      await t.user('420601600600');
      const ok = async (content: unknown, metadata?: Record<string, unknown>) => {
        const res = await t.send(made.id, phone, content, metadata);
        assert.equal(res.status, 201, res.text);
        return t.taken(made.senderId, res.body.id);
      };
      const refused = async (content: unknown, field: string, metadata?: Record<string, unknown>) => {
        const res = await t.send(made.id, phone, content, metadata);
        assert.equal(res.status, 422, `${field}: ${res.text}`);
        assert.equal(res.body.errors[0].field, field, res.text);
      };

      const longest = await ok(TEXT('x'.repeat(1000)));
      assert.equal(longest.body.message['#txt'].length, 1000);
      await refused(TEXT('x'.repeat(1001)), 'content.payload');
      assert.equal(longest.ttl, 1_209_600, 'no TTL of the channel: the platform’s longest');

      const options = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'text', title: `Option ${i + 1}`, payload: `OPT_${i + 1}` }));
      const list = await ok({ type: 'text', payload: 'y'.repeat(85), quick_replies: options(10) });
      assert.equal(list.type, 801);
      assert.deepEqual(
        list.body.survey.options,
        options(10).map((o) => o.title),
      );
      await refused({ type: 'text', payload: 'y'.repeat(86), quick_replies: options(2) }, 'content.payload');
      await refused({ type: 'text', payload: 'Pick', quick_replies: options(1) }, 'content.quick_replies');
      await refused({ type: 'text', payload: 'Pick', quick_replies: options(11) }, 'content.quick_replies');
      await refused({ type: 'image', payload: { url: t.state.media.url('photo.png') }, quick_replies: options(2) }, 'content.quick_replies');

      assert.equal(longest.label, 'transaction');
      const image = await ok({ type: 'image', payload: { url: t.state.media.url('photo.png') } });
      assert.equal(image.type, 207);
      assert.equal(image.label, 'promotion', 'an image is billed as a promotion');
      assert.equal(image.body.message['#img'], t.state.media.url('photo.png'));

      const button = { type: 'url', title: 'x'.repeat(20), payload: 'https://shop.example.com/o/1' };
      const imageTextButton = await ok({
        type: 'structure',
        payload: { title: 'Order', text: 'Shipped', image_url: t.state.media.url('photo.png'), buttons: [button] },
      });
      assert.equal(imageTextButton.type, 208);
      assert.equal(imageTextButton.label, 'promotion');
      assert.deepEqual(
        [imageTextButton.body.message['#txt'], imageTextButton.body.message['#caption'], imageTextButton.body.message['#action']],
        ['Order\nShipped', button.title, button.payload],
      );
      const textButton = await ok({ type: 'structure', payload: { text: 'Track it', buttons: [button] } });
      assert.equal(textButton.type, 209);
      assert.equal(textButton.label, 'promotion');
      await refused({ type: 'structure', payload: { text: 'two', buttons: [button, button] } }, 'content.payload.buttons');
      await refused(
        { type: 'structure', payload: { text: 'call', buttons: [{ type: 'postback', title: 'Yes', payload: 'Y' }] } },
        'content.payload.buttons[0].type',
      );
      await refused({ type: 'structure', payload: { text: 'and image', image_url: t.state.media.url('photo.png') } }, 'content.payload.buttons');

      // A carousel: the message's own text, each card a title (2-38), an image and one or two url buttons (labels at most 10 and 12).
      const buy = { type: 'url', title: 'x'.repeat(10), payload: 'https://shop.example.com/buy' };
      const more = { type: 'url', title: 'y'.repeat(12), payload: 'https://shop.example.com/more' };
      const card = (i: number) => ({ title: `Card ${i}`, image_url: t.state.media.url('photo.png'), buttons: [buy] });
      const carousel = { carousel_text: 'Spring offers' };
      const five = await ok({ type: 'structure', payload: [1, 2, 3, 4, 5].map(card) }, carousel);
      assert.equal(five.type, 901);
      assert.equal(five.label, 'promotion');
      assert.equal(five.body.message['#txt'], 'Spring offers');
      assert.equal(five.body.carousel.items.length, 5);
      assert.deepEqual(five.body.carousel.items[0], {
        title: 'Card 1',
        imageUrl: t.state.media.url('photo.png'),
        primaryButton: { label: buy.title, actionUrl: buy.payload },
      });
      const two = await ok({ type: 'structure', payload: [card(1), { ...card(2), title: 'z'.repeat(38), buttons: [buy, more] }] }, carousel);
      assert.deepEqual(two.body.carousel.items[1].secondaryButton, { label: more.title, actionUrl: more.payload });
      await refused({ type: 'structure', payload: [card(1)] }, 'content.payload', carousel);
      await refused({ type: 'structure', payload: [1, 2, 3, 4, 5, 6].map(card) }, 'content.payload', carousel);
      await refused({ type: 'structure', payload: [1, 2].map(card) }, 'metadata.carousel_text');
      await refused({ type: 'structure', payload: [card(1), { ...card(2), title: 'z' }] }, 'content.payload[1].title', carousel);
      await refused({ type: 'structure', payload: [card(1), { ...card(2), title: 'z'.repeat(39) }] }, 'content.payload[1].title', carousel);
      await refused(
        { type: 'structure', payload: [card(1), { ...card(2), buttons: [{ ...buy, title: 'x'.repeat(11) }] }] },
        'content.payload[1].buttons[0].title',
        carousel,
      );
      await refused(
        { type: 'structure', payload: [card(1), { ...card(2), buttons: [buy, { ...more, title: 'y'.repeat(13) }] }] },
        'content.payload[1].buttons[1].title',
        carousel,
      );
      await refused({ type: 'structure', payload: [card(1), { title: 'No image', buttons: [buy] }] }, 'content.payload[1].image_url', carousel);
      await refused({ type: 'structure', payload: [card(1), { ...card(2), buttons: [] }] }, 'content.payload[1].buttons', carousel);
      await refused({ type: 'structure', payload: [card(1), { ...card(2), text: 'not shown' }] }, 'content.payload[1].text', carousel);

      const file = await ok({
        type: 'file',
        payload: { url: `${t.state.media.url('terms.pdf').replace('terms.pdf', 'general-terms-and-conditions-2026.pdf')}` },
      });
      assert.equal(file.type, 220);
      assert.equal(file.label, 'transaction');
      assert.equal(file.body.message['#fileName'], 'general-terms-and-con.pdf');
      assert.equal([...file.body.message['#fileName']].length, 25);
      assert.equal(file.body.file_type, 'pdf');

      const thumbnail = { video_thumbnail: t.state.media.url('photo.png') };
      const video = await ok({ type: 'video', payload: { url: t.state.media.url('clip.mp4') } }, { video_duration: 600, ...thumbnail });
      assert.equal(video.type, 230);
      assert.equal(video.label, 'promotion');
      assert.equal(video.body.message['#action'], t.state.media.url('clip.mp4'), "the video's URL in #action");
      assert.equal(video.body.message['#media'], undefined, 'only type 233 uses #media');
      assert.equal(video.body.message['#thumbnail'], t.state.media.url('photo.png'));
      assert.equal(video.body.file_size, Buffer.byteLength('not really a video'), 'the size read from the URL');
      assert.equal(video.body.duration, 600);
      await refused({ type: 'video', payload: { url: t.state.media.url('clip.mp4') } }, 'metadata.video_duration', thumbnail);
      await refused({ type: 'video', payload: { url: t.state.media.url('clip.mp4') } }, 'metadata.video_duration', { video_duration: 601, ...thumbnail });
      await refused({ type: 'video', payload: { url: t.state.media.url('clip.mp4') } }, 'metadata.video_thumbnail', { video_duration: 60 });
      await refused({ type: 'video', payload: { url: t.state.media.url('clip.mp4') } }, 'metadata.video_thumbnail', {
        video_duration: 60,
        video_thumbnail: `https://x.example/${'t'.repeat(1000)}`,
      });
      await refused({ type: 'location', payload: { latitude: 50, longitude: 14 } }, 'content.type');

      // The message's own TTL over the channel's.
      const own = await ok(TEXT('five minutes'), { time_to_live: 'PT5M' });
      assert.ok(own.ttl > 290 && own.ttl <= 300, String(own.ttl));
      await refused(TEXT('too short'), 'metadata.time_to_live', { time_to_live: 'PT29S' });
      await refused(TEXT('too long'), 'metadata.time_to_live', { time_to_live: 'P15D' });
    });

    test('a list choice comes back as its quick reply payload; an unsubscribe is answered', async () => {
      const made = await t.connect(LEGACY);
      await t.user('420601700700');
      const asked = await t.send(made.id, '+420601700700', {
        type: 'text',
        payload: 'Which size?',
        quick_replies: [
          { type: 'text', title: 'Large', payload: 'SIZE_L' },
          { type: 'text', title: 'Small', payload: 'SIZE_S' },
        ],
      });
      assert.equal(asked.status, 201, asked.text);
      const list = await t.taken(made.senderId, asked.body.id);
      assert.equal(list.label, 'transaction');
      await t.sandbox(`/services/${made.senderId}/users/420601700700/reply`, { text: 'Small' });
      const picked = await made.hook.waitFor('message_received');
      assert.equal(picked.data.content.quick_reply?.payload, 'SIZE_S', JSON.stringify(picked.data.content));
      const unsubscribed = await t.sandbox(`/services/${made.senderId}/users/420601700700/block`, {});
      assert.equal(unsubscribed.body.webhook?.status, 200, unsubscribed.text);
      // Blocked now: the next send fails with code 2.
      const after = await t.send(made.id, '+420601700700', TEXT('still there?'));
      const failed = await made.hook.waitFor('message_failed', (e) => e.data.message.id === after.body.id);
      assert.equal(failed.data.error.code, 2);
    });
  });

  describe(`appmsg_business_messages time to live (${dialect})`, { skip }, () => {
    const clock = new OffsetClock();
    const t = setup(dialect, { clock });

    test('expiry reported by the platform: message_failed code 4', async () => {
      const made = await t.connect({ default_message_ttl: 'PT20M', ...LEGACY });
      await t.user('420601800001');
      const res = await t.send(made.id, '+420601800001', TEXT('expires'));
      const atPlatform = await t.taken(made.senderId, res.body.id);
      await eventually(async () => ((await t.messageOf(res.body.id)).status === 'sent' ? true : undefined), 10_000, 'sent');
      const expired = await t.sandbox(`/messages/${atPlatform.token}/status`, { status: 'expired' });
      assert.equal(expired.body.webhook?.status, 200, expired.text);
      const failed = await made.hook.waitFor('message_failed');
      assert.equal(failed.data.error.code, 4);
      // A delivery report after it changes nothing.
      await t.sandbox(`/messages/${atPlatform.token}/status`, { status: 'delivered' });
      assert.equal((await t.messageOf(res.body.id)).status, 'failed');
    });

    test('expiry the platform never reports: the service fails the message itself after its TTL (sent, or never sent)', async () => {
      const made = await t.connect({ default_message_ttl: 'PT20M', ...LEGACY });
      await t.user('420601800002');
      await t.user('420601800003');
      await t.user('420601800004');
      const quiet = await t.send(made.id, '+420601800002', TEXT('nobody reports'), { time_to_live: 'PT2M' });
      const delivered = await t.send(made.id, '+420601800003', TEXT('delivered in time'), { time_to_live: 'PT2M' });
      const quietAt = await t.taken(made.senderId, quiet.body.id);
      assert.ok(quietAt.ttl > 110 && quietAt.ttl <= 120, String(quietAt.ttl));
      const deliveredAt = await t.taken(made.senderId, delivered.body.id);
      await eventually(async () => ((await t.messageOf(quiet.body.id)).status === 'sent' ? true : undefined), 10_000, 'sent');
      await t.sandbox(`/messages/${deliveredAt.token}/status`, { status: 'delivered' });
      await made.hook.waitFor('messages_delivered');

      // The platform is down for the next one: its send is tried again until its TTL runs out.
      await t.sandbox('/faults', { kind: 'server_error', endpoint: 'send_message', status: 503, count: 1000 });
      const neverSent = await t.send(made.id, '+420601800004', TEXT('platform down'), { time_to_live: 'PT2M' });
      assert.equal(neverSent.status, 201);
      await eventually(
        async () => {
          const rows = await t.state.s.runtime.store.db
            .selectFrom('jobs')
            .select('attempts')
            .where('message_id', '=', Number(neverSent.body.id))
            .where('kind', '=', 'send')
            .execute();
          return rows[0] && rows[0].attempts >= 1 ? true : undefined;
        },
        10_000,
        'a first attempt',
      );
      // Before the TTL and its grace minute nothing changes.
      clock.advance(2 * 60_000);
      assert.equal((await t.messageOf(quiet.body.id)).status, 'sent');
      clock.advance(61_000);
      const failedQuiet = await made.hook.waitFor('message_failed', (e) => e.data.message.id === quiet.body.id, 15_000);
      assert.equal(failedQuiet.data.error.code, 4);
      const failedDown = await made.hook.waitFor('message_failed', (e) => e.data.message.id === neverSent.body.id, 15_000);
      assert.equal(failedDown.data.error.code, 4);
      assert.equal((await t.messageOf(delivered.body.id)).status, 'delivered');
      assert.equal(made.hook.events.filter((e) => e.event === 'message_failed').length, 2);
      await t.sandbox('/faults', undefined, 'DELETE');
    });
  });
}
