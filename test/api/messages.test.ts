import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import type { StoredMessage } from '../../src/domain/messages/service.js';
import { channelBody, count, createChannel, fakeConnectors, send, type SentCall } from './messages-fixtures.js';
import { contactRow } from '../helpers/store-rows.js';

const TEXT = { type: 'text', payload: 'Hello' };
/** A receiver these servers never call (they run no workers): its deliveries stay pending. */
const HOOK = { url: 'https://example.com/hook' };
const qrs = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'text', title: `Option ${i}`, payload: `P${i}` }));

for (const { dialect, skip } of await dialects()) {
  describe(`Send Message (${dialect})`, { skip }, () => {
    let s: TestServer;
    let calls: SentCall[];
    let stored: StoredMessage[];
    let mobileTest: string;
    let chat: string;
    before(async () => {
      const fake = fakeConnectors();
      calls = fake.calls;
      s = await startTestApp(dialect, { connectors: fake.registry });
      stored = [];
      s.runtime.signals.on('messageStored', (m) => stored.push(m));
      mobileTest = await createChannel(s.api, 'mobile', 'test');
      chat = await createChannel(s.api, 'service_chat');
    });
    after(async () => s?.close());

    async function chatContact(): Promise<string> {
      // service_chat contacts are made by the chat server when a conversation starts.
      const id = s.runtime.ids.nextNumber();
      const now = Date.now();
      await s.runtime.store.contacts.insert({
        id,
        account_id: s.accountId,
        channel_id: Number(chat),
        external_id: `ext-${id}`,
        phone_number: null,
        email: null,
        user_ref: null,
        name: null,
        profile: '{}',
        created_at: now,
        updated_at: now,
      });
      return String(id);
    }

    test('201 with Location and the message shape; the Location answers the same message', async () => {
      const res = await send(s.api, mobileTest, { phone_number: '+420 601 123 456' }, TEXT, { metadata: { order: 42, nested: { a: [1, 2] } } });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get('location'), `${s.baseUrl}/messages/${res.body.id}`);
      assert.deepEqual(Object.keys(res.body), ['id', 'direction', 'sent', 'delivered', 'read', 'channel', 'contact', 'content', 'metadata']);
      assert.match(res.body.id, /^[1-9][0-9]*$/);
      assert.equal(res.body.direction, 'sent');
      assert.match(res.body.sent, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(res.body.delivered, null);
      assert.equal(res.body.read, null);
      assert.deepEqual(res.body.channel, { id: mobileTest, type: 'mobile' });
      assert.equal(res.body.contact.phone_number, '+420601123456');
      assert.deepEqual(res.body.content, TEXT);
      assert.deepEqual(res.body.metadata, { order: 42, nested: { a: [1, 2] } });
      const got = await s.api.get(new URL(res.headers.get('location')!).pathname);
      assert.equal(got.status, 200);
      // Get Message adds the status and, on mobile, the SMS parts (beyond the specification); the rest is the same message.
      assert.deepEqual(got.body, { ...res.body, status: 'sent', parts: { count: 1, encoding: 'gsm7' } });
      const noMeta = await send(s.api, mobileTest, { phone_number: '+420601123456' }, TEXT);
      assert.equal('metadata' in noMeta.body, false);
    });

    test("Get Message: unknown, malformed and another account's ids are 404", async () => {
      const res = await send(s.api, mobileTest, { phone_number: '+420601123456' }, TEXT);
      const other = await s.newAccount();
      assert.equal((await other.api.get(`/v1/messages/${res.body.id}`)).status, 404);
      assert.equal((await s.api.get('/v1/messages/123')).status, 404);
      assert.equal((await s.api.get('/v1/messages/abc')).status, 404);
    });

    test('every content type at its boundaries (service_chat)', async () => {
      const contact = await chatContact();
      const cases: Array<[string, unknown, number, string?]> = [
        ['text', TEXT, 201],
        ['empty text', { type: 'text', payload: '' }, 422, 'content.payload'],
        ['blank text', { type: 'text', payload: '  ' }, 422, 'content.payload'],
        ['image', { type: 'image', payload: { url: 'https://example.com/a.png' } }, 201],
        ['image without url', { type: 'image', payload: {} }, 422, 'content.payload.url'],
        ['video', { type: 'video', payload: { url: 'https://example.com/a.mp4' } }, 201],
        ['audio', { type: 'audio', payload: { url: 'https://example.com/a.mp3' } }, 201],
        ['file without payload', { type: 'file' }, 422, 'content.payload'],
        ['location at the edges', { type: 'location', payload: { latitude: -90, longitude: 180 } }, 201],
        ['latitude out of range', { type: 'location', payload: { latitude: 90.5, longitude: 0 } }, 422, 'content.payload.latitude'],
        ['longitude out of range', { type: 'location', payload: { latitude: 0, longitude: -180.5 } }, 422, 'content.payload.longitude'],
        ['structure of 10 cards', { type: 'structure', payload: Array.from({ length: 10 }, (_, i) => ({ title: `c${i}` })) }, 201],
        ['structure of 11 cards', { type: 'structure', payload: Array.from({ length: 11 }, (_, i) => ({ title: `c${i}` })) }, 422, 'content.payload'],
        [
          'card with 3 buttons',
          { type: 'structure', payload: { title: 'c', buttons: [1, 2, 3].map((i) => ({ type: 'postback', title: `b${i}`, payload: 'x' })) } },
          201,
        ],
        [
          'card with 4 buttons',
          { type: 'structure', payload: { title: 'c', buttons: [1, 2, 3, 4].map((i) => ({ type: 'postback', title: `b${i}`, payload: 'x' })) } },
          422,
          'content.payload.buttons',
        ],
        [
          'button title of 21',
          { type: 'structure', payload: { title: 'c', buttons: [{ type: 'url', title: 'b'.repeat(21), payload: 'https://e.com' }] } },
          422,
          'content.payload.buttons[0].title',
        ],
        [
          'postback payload of 1001',
          { type: 'structure', payload: { title: 'c', buttons: [{ type: 'postback', title: 'b', payload: 'p'.repeat(1001) }] } },
          422,
          'content.payload.buttons[0].payload',
        ],
        ['11 quick replies', { ...TEXT, quick_replies: qrs(11) }, 201],
        ['12 quick replies', { ...TEXT, quick_replies: qrs(12) }, 422, 'content.quick_replies'],
        ['quick reply payload of 1000', { ...TEXT, quick_replies: [{ type: 'text', title: 't', payload: 'p'.repeat(1000) }] }, 201],
        [
          'quick reply payload of 1001',
          { ...TEXT, quick_replies: [{ type: 'text', title: 't', payload: 'p'.repeat(1001) }] },
          422,
          'content.quick_replies[0].payload',
        ],
        [
          'quick reply image_url not a URL',
          { ...TEXT, quick_replies: [{ type: 'text', title: 't', payload: 'p', image_url: 'icon.png' }] },
          422,
          'content.quick_replies[0].image_url',
        ],
        [
          'the four quick reply kinds',
          { ...TEXT, quick_replies: [{ type: 'text', title: 't', payload: 'p' }, { type: 'location' }, { type: 'email' }, { type: 'phone_number' }] },
          201,
        ],
        ['quick replies on a location', { type: 'location', payload: { latitude: 1, longitude: 2 }, quick_replies: [{ type: 'location' }] }, 201],
        [
          'receipt (not a service_chat type)',
          { type: 'receipt', payload: { recipient_name: 'J', order_number: '1', currency: 'EUR', payment_method: 'card', summary: { total_cost: 1 } } },
          422,
          'content.type',
        ],
      ];
      for (const [name, content, status, field] of cases) {
        const res = await send(s.api, chat, { id: contact }, content);
        assert.equal(res.status, status, `${name}: ${res.text}`);
        if (status === 201) assert.deepEqual(res.body.content, content, name);
        else {
          assert.equal(res.body.errors[0].field, field, name);
          assert.equal(res.body.status.code, '422');
        }
      }
    });

    test('a quick-reply title over 20 characters is stored and returned truncated', async () => {
      const res = await send(
        s.api,
        mobileTest,
        { phone_number: '+420601123456' },
        {
          ...TEXT,
          quick_replies: [
            { type: 'text', title: 'T'.repeat(20), payload: 'a' },
            { type: 'text', title: `${'T'.repeat(20)}xyz`, payload: 'b' },
          ],
        },
      );
      assert.equal(res.status, 201);
      assert.deepEqual(
        res.body.content.quick_replies.map((q: { title: string }) => q.title),
        ['T'.repeat(20), 'T'.repeat(20)],
      );
      const listed = await s.api.get(`/v1/channels/${mobileTest}/contacts/${res.body.contact.id}/messages?max=1`);
      assert.deepEqual(listed.body[0].content, res.body.content);
    });

    test('the request body: unknown properties, nulls and missing parts are 422 naming the field', async () => {
      const cases: Array<[unknown, string, RegExp]> = [
        [{ channel: { id: mobileTest }, contact: { phone_number: '+420601123456' }, content: TEXT, extra: 1 }, 'extra', /is not supported/],
        [{ channel: { id: mobileTest }, contact: { phone_number: '+420601123456' } }, 'content', /Missing property 'content'/],
        [{ channel: null, contact: { phone_number: '+420601123456' }, content: TEXT }, 'channel', /cannot be null/],
        [{ channel: { id: mobileTest }, contact: { phone_number: '+420601123456' }, content: TEXT, metadata: null }, 'metadata', /cannot be null/],
        [{ channel: { id: mobileTest }, contact: { phone_number: '+420601123456', fax: '1' }, content: TEXT }, 'contact.fax', /is not supported/],
      ];
      for (const [body, field, message] of cases) {
        const res = await s.api.post('/v1/messages', body);
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, field);
        assert.match(res.body.errors[0].message, message);
      }
      assert.equal((await s.api.post('/v1/messages', '{"channel":')).status, 400);
      assert.equal((await s.api.post('/v1/messages', [1])).status, 400);
    });

    test("an unknown channel, or another account's, is 422 on channel.id", async () => {
      const other = await s.newAccount();
      for (const api of [other.api]) {
        const res = await send(api, mobileTest, { phone_number: '+420601123456' }, TEXT);
        assert.equal(res.status, 422);
        assert.equal(res.body.errors[0].field, 'channel.id');
      }
      assert.equal((await send(s.api, '999', { phone_number: '+420601123456' }, TEXT)).body.errors[0].field, 'channel.id');
      assert.equal((await send(s.api, 'x', { phone_number: '+420601123456' }, TEXT)).body.errors[0].field, 'channel.id');
    });

    test('capabilities: socialnet_chat cannot send location; mobile text is at most 1377 characters', async () => {
      const page = await createChannel(s.api, 'socialnet_chat');
      const loc = await send(s.api, page, { phone_number: '+420601123456' }, { type: 'location', payload: { latitude: 1, longitude: 2 } });
      assert.equal(loc.status, 422);
      assert.equal(loc.body.errors[0].field, 'content.type');
      assert.match(loc.body.errors[0].message, /socialnet_chat channel cannot send content of type 'location'/);
      assert.equal((await send(s.api, mobileTest, { phone_number: '+420601123456' }, { type: 'text', payload: 'a'.repeat(1377) })).status, 201);
      const long = await send(s.api, mobileTest, { phone_number: '+420601123456' }, { type: 'text', payload: 'a'.repeat(1378) });
      assert.equal(long.status, 422);
      assert.equal(long.body.errors[0].field, 'content.payload');
    });

    test('contact addressing: a form the channel type does not take is a clear 422', async () => {
      const contact = await chatContact();
      const cases: Array<[string, Record<string, unknown>, string]> = [
        [mobileTest, { id: contact }, 'contact.id'],
        [chat, { phone_number: '+420601123456' }, 'contact.phone_number'],
        [chat, { email: 'a@example.com' }, 'contact.email'],
        [mobileTest, { user_ref: 'r' }, 'contact.user_ref'],
        [mobileTest, {}, 'contact'],
        [chat, { id: contact, phone_number: '+420601123456' }, 'contact'],
      ];
      for (const [channel, c, field] of cases) {
        const res = await send(s.api, channel, c, TEXT);
        assert.equal(res.status, 422, JSON.stringify(c));
        assert.equal(res.body.errors[0].field, field);
      }
      const unknown = await send(s.api, chat, { id: '12345' }, TEXT);
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.errors[0].field, 'contact.id');
      assert.match(unknown.body.errors[0].message, /does not exist/);
      // A contact of another channel is not this channel's contact.
      const onMobile = await send(s.api, mobileTest, { phone_number: '+420601999999' }, TEXT);
      assert.equal((await send(s.api, chat, { id: onMobile.body.contact.id }, TEXT)).status, 422);
    });

    test('a new phone number creates the contact once; free formats reach the same contact', async () => {
      const channel = await createChannel(s.api, 'mobile', 'test');
      const before = await count(s, 'contacts', { channel_id: Number(channel) });
      const a = await send(s.api, channel, { phone_number: '+420 777 000 111' }, TEXT);
      const b = await send(s.api, channel, { phone_number: '00420777000111' }, TEXT);
      const c = await send(s.api, channel, { phone_number: '+420-777-000-111' }, TEXT);
      assert.deepEqual([a.status, b.status, c.status], [201, 201, 201]);
      assert.equal(a.body.contact.id, b.body.contact.id);
      assert.equal(a.body.contact.id, c.body.contact.id);
      assert.equal(await count(s, 'contacts', { channel_id: Number(channel) }), before + 1);
      const contact = await s.api.get(`/v1/channels/${channel}/contacts/${a.body.contact.id}`);
      assert.deepEqual(contact.body, { id: a.body.contact.id, name: '+420777000111', phone_number: '+420777000111' });
    });

    test('concurrent sends to one new number share one contact', async () => {
      const channel = await createChannel(s.api, 'mobile', 'test');
      const all = await Promise.all(
        Array.from({ length: 30 }, (_, i) => send(s.api, channel, { phone_number: `+42060200000${i % 3}` }, { type: 'text', payload: `m${i}` })),
      );
      assert.deepEqual([...new Set(all.map((r) => r.status))], [201]);
      assert.equal(new Set(all.map((r) => r.body.contact.id)).size, 3);
      assert.equal(await count(s, 'contacts', { channel_id: Number(channel) }), 3);
      assert.equal(await count(s, 'messages', { channel_id: Number(channel) }), 30);
    });

    test('a number without country code is refused naming the field when no default region is set', async () => {
      const res = await send(s.api, mobileTest, { phone_number: '601 123 456' }, TEXT);
      assert.equal(res.status, 422);
      assert.equal(res.body.errors[0].field, 'contact.phone_number');
      assert.equal(res.body.errors[0].rejected_value, '601 123 456');
      assert.match(res.body.errors[0].message, /no country code/);
      const bad = await send(s.api, mobileTest, { phone_number: '+42' }, TEXT);
      assert.equal(bad.body.errors[0].field, 'contact.phone_number');
    });

    test('test mode (mobile, rbm, appmsg_business_messages): stored and echoed, no send job', async () => {
      for (const type of ['mobile', 'rbm', 'appmsg_business_messages']) {
        const channel = await createChannel(s.api, type, 'test', { webhook: HOOK });
        const res = await send(s.api, channel, { phone_number: '+420601123456' }, TEXT);
        assert.equal(res.status, 201, `${type}: ${res.text}`);
        const row = await s.runtime.store.messages.find(s.accountId, Number(res.body.id));
        assert.equal(row?.status, 'sent');
        assert.equal(await count(s, 'events', { channel_id: Number(channel), type: 'message_echo' }), 1);
        assert.equal(await count(s, 'deliveries', { channel_id: Number(channel) }), 1);
        assert.equal(await count(s, 'jobs', { channel_id: Number(channel) }), 0);
      }
    });

    test('a channel without a webhook: the message is stored, its echo has no row (nothing would read it)', async () => {
      const res = await send(s.api, mobileTest, { phone_number: '+420601123456' }, TEXT);
      assert.equal(res.status, 201, res.text);
      assert.equal((await s.runtime.store.messages.find(s.accountId, Number(res.body.id)))?.status, 'sent');
      assert.equal(await count(s, 'events', { message_id: Number(res.body.id) }), 0);
      assert.equal(await count(s, 'deliveries', { channel_id: Number(mobileTest) }), 0);
      // Get Message answers from the message row alone.
      const got = await s.api.get(`/v1/messages/${res.body.id}`);
      assert.equal(got.status, 200);
      assert.equal(got.body.id, res.body.id);
    });

    test('asynchronous types with a sender in production: stored as queued with a pending send job in the same commit', async () => {
      for (const [type, contact] of [
        ['mobile', { phone_number: '+420601123456' }],
        ['email', { email: 'jan@example.com', name: 'Jan' }],
        ['appmsg_business_messages', { phone_number: '+420601123456' }],
      ] as const) {
        const channel = await createChannel(s.api, type, undefined, { webhook: HOOK });
        const res = await send(s.api, channel, contact, TEXT);
        assert.equal(res.status, 201, `${type}: ${res.text}`);
        const row = await s.runtime.store.messages.find(s.accountId, Number(res.body.id));
        assert.equal(row?.status, 'queued');
        const all = await s.runtime.store.db.selectFrom('jobs').selectAll().where('channel_id', '=', Number(channel)).execute();
        // A type whose messages have a time to live also gets the check of its deadline.
        assert.deepEqual(all.map((j) => j.kind).sort(), type === 'appmsg_business_messages' ? ['delivery_deadline', 'send'] : ['send']);
        const jobs = all.filter((j) => j.kind === 'send');
        assert.equal(jobs[0]!.status, 'pending');
        assert.equal(JSON.parse(jobs[0]!.payload).message_id, res.body.id);
        assert.equal(jobs[0]!.message_id, Number(res.body.id));
        assert.equal(jobs[0]!.max_attempts, 20);
        // The send job expires with the message's time to live (14 days without one), else after 24 hours.
        assert.equal(Number(jobs[0]!.expires_at) - Number(jobs[0]!.created_at), (type === 'appmsg_business_messages' ? 14 * 24 : 24) * 60 * 60_000);
        assert.equal(await count(s, 'events', { channel_id: Number(channel), type: 'message_echo' }), 1);
      }
    });

    test('service_chat: stored, echoed, and reported to the local listeners after the commit', async () => {
      const contact = await chatContact();
      stored.length = 0;
      const res = await send(s.api, chat, { id: contact }, TEXT);
      assert.equal(res.status, 201);
      assert.equal(stored.length, 1);
      assert.equal(stored[0]!.channel.type, 'service_chat');
      assert.equal(stored[0]!.contactId, contact);
      assert.deepEqual(stored[0]!.message, res.body);
      assert.equal((await s.runtime.store.messages.find(s.accountId, Number(res.body.id)))?.status, 'sent');
    });

    test('a synchronous type without a connector answers 502 and keeps nothing', async () => {
      const channel = await createChannel(s.api, 'appmsg');
      const contact = s.runtime.ids.nextNumber();
      await s.runtime.store.contacts.insert(contactRow({ id: contact, account_id: s.accountId, channel_id: Number(channel), external_id: 'u1' }));
      const res = await send(s.api, channel, { id: String(contact) }, TEXT);
      assert.equal(res.status, 502);
      assert.match(res.body.errors[0].message, /appmsg platform connector is not available/);
      assert.equal(await count(s, 'messages', { channel_id: Number(channel) }), 0);
      assert.equal(await count(s, 'events', { channel_id: Number(channel) }), 0);
    });

    test('a synchronous type with a connector: sent inside the request, with the platform id', async () => {
      const page = await createChannel(s.api, 'socialnet_chat');
      calls.length = 0;
      const res = await send(s.api, page, { phone_number: '+420601555666', first_name: 'Jan', last_name: 'Novák' }, TEXT, { metadata: { ref: 'x' } });
      assert.equal(res.status, 201, res.text);
      assert.equal(calls.length, 1);
      assert.equal(calls[0]!.recipient.phoneNumber, '+420601555666');
      // Before the user opted in, a send by phone number goes out with the subscription tag.
      assert.deepEqual(calls[0]!.message.metadata, { ref: 'x', tag: 'non_promotional_subscription' });
      assert.deepEqual(res.body.metadata, { ref: 'x' });
      const row = await s.runtime.store.messages.find(s.accountId, Number(res.body.id));
      assert.equal(row?.status, 'sent');
      assert.match(row!.external_id!, /^mid\./);
      const contact = await s.api.get(`/v1/channels/${page}/contacts/${res.body.contact.id}`);
      assert.deepEqual(contact.body, { id: res.body.contact.id, name: 'Jan Novák', phone_number: '+420601555666' });
    });

    test('a platform refusal answers 502 with its reason; the message is kept as failed, not echoed', async () => {
      const bot = await createChannel(s.api, 'botmsg');
      const contact = s.runtime.ids.nextNumber();
      await s.runtime.store.contacts.insert({
        id: contact,
        account_id: s.accountId,
        channel_id: Number(bot),
        external_id: '777',
        phone_number: null,
        email: null,
        user_ref: null,
        name: 'Eva',
        profile: '{}',
        created_at: 1,
        updated_at: 1,
      });
      const res = await send(s.api, bot, { id: String(contact) }, TEXT);
      assert.equal(res.status, 502);
      assert.match(res.body.errors[0].message, /bot was blocked by the user/);
      const rows = await s.runtime.store.db.selectFrom('messages').selectAll().where('channel_id', '=', Number(bot)).execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.status, 'failed');
      assert.equal(await count(s, 'events', { channel_id: Number(bot) }), 0);
    });

    test('reserved metadata keys on socialnet_chat: checked, tag stored in lower case', async () => {
      const page = await createChannel(s.api, 'socialnet_chat');
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ platform_metadata: 'm'.repeat(1001) }, 'metadata.platform_metadata'],
        [{ tag: 'not_a_tag' }, 'metadata.tag'],
        [{ type: 'broadcast' }, 'metadata.type'],
        [{ type: 'update', tag: 'account_update' }, 'metadata.type'],
      ];
      for (const [metadata, field] of bad) {
        const res = await send(s.api, page, { phone_number: '+420601123456' }, TEXT, { metadata });
        assert.equal(res.status, 422, JSON.stringify(metadata));
        assert.equal(res.body.errors[0].field, field);
      }
      const ok = await send(s.api, page, { phone_number: '+420601123456' }, TEXT, {
        metadata: { platform_metadata: 'm'.repeat(1000), tag: 'SHIPPING_UPDATE', mine: true },
      });
      assert.equal(ok.status, 201, ok.text);
      assert.deepEqual(ok.body.metadata, { platform_metadata: 'm'.repeat(1000), tag: 'shipping_update', mine: true });
      const typed = await send(s.api, page, { phone_number: '+420601123456' }, TEXT, { metadata: { type: 'update' } });
      assert.equal(typed.status, 201);
      // Elsewhere the same keys are free data.
      const free = await send(s.api, mobileTest, { phone_number: '+420601123456' }, TEXT, { metadata: { tag: 'WHATEVER', type: 'x' } });
      assert.deepEqual(free.body.metadata, { tag: 'WHATEVER', type: 'x' });
    });

    test('the message_echo event is the message shape with channel.name, and gets a delivery when the channel has a webhook', async () => {
      const channel = await createChannel(s.api, 'mobile', 'test', { webhook: { url: 'https://example.com/hook' } });
      const res = await send(s.api, channel, { phone_number: '+420601123456' }, TEXT, { metadata: { k: 'v' } });
      const events = await s.runtime.store.db.selectFrom('events').selectAll().where('channel_id', '=', Number(channel)).execute();
      assert.equal(events.length, 1);
      assert.equal(events[0]!.type, 'message_echo');
      // About one message: tied to the message, which names the contact.
      assert.equal(String(events[0]!.message_id), res.body.id);
      assert.equal(events[0]!.contact_id, null);
      const body = JSON.parse(events[0]!.body);
      assert.equal(body.event, 'message_echo');
      assert.deepEqual(body.data, { ...res.body, channel: { id: channel, type: 'mobile', name: 'mobile channel' } });
      const deliveries = await s.runtime.store.db.selectFrom('deliveries').selectAll().where('event_id', '=', events[0]!.id).execute();
      assert.equal(deliveries.length, 1);
      assert.equal(deliveries[0]!.status, 'pending');
      assert.equal(await count(s, 'deliveries', { channel_id: Number(mobileTest) }), 0);
    });

    test('rbm in production: new agents are refused, created agents send only to accepted testers, launched agents to anyone', async () => {
      const rbm = await createChannel(s.api, 'rbm');
      const refused = await send(s.api, rbm, { phone_number: '+420601123456' }, TEXT);
      assert.equal(refused.status, 422);
      assert.equal(refused.body.errors[0].field, 'channel.id');
      assert.match(refused.body.errors[0].message, /test mode/);
      const setConfig = async (config: Record<string, unknown>) => {
        await s.runtime.store.channels.update(s.accountId, Number(rbm), { config: JSON.stringify({ agent_name: 'Agent', region: 'europe', ...config }) });
        s.runtime.signals.emit('channelChanged', { channelId: rbm });
      };
      await setConfig({ agent_state: 'created', testers: { '+420601000001': 'accepted', '+420601000002': 'pending' } });
      assert.equal((await send(s.api, rbm, { phone_number: '+420 601 000 001' }, TEXT)).status, 201);
      const other = await send(s.api, rbm, { phone_number: '+420601000002' }, TEXT);
      assert.equal(other.status, 422);
      assert.equal(other.body.errors[0].field, 'contact.phone_number');
      await setConfig({ agent_state: 'launched' });
      assert.equal((await send(s.api, rbm, { phone_number: '+420601000002' }, TEXT)).status, 201);
    });

    test('List Messages: newest first, max/offset, x-total-count, 404 for unknown contact or channel', async () => {
      const channel = await createChannel(s.api, 'mobile', 'test');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await send(s.api, channel, { phone_number: '+420601123456' }, { type: 'text', payload: `m${i}` }, { metadata: { i } })).body.id);
      const contact = (await s.api.get(`/v1/channels/${channel}/contacts`)).body[0].id;
      const all = await s.api.get(`/v1/channels/${channel}/contacts/${contact}/messages`);
      assert.equal(all.status, 200);
      assert.equal(all.headers.get('x-total-count'), '5');
      assert.deepEqual(
        all.body.map((m: { id: string }) => m.id),
        [...ids].reverse(),
      );
      assert.deepEqual(
        all.body.map((m: { metadata: { i: number } }) => m.metadata.i),
        [4, 3, 2, 1, 0],
      );
      const page = await s.api.get(`/v1/channels/${channel}/contacts/${contact}/messages?max=2&offset=1`);
      assert.deepEqual(
        page.body.map((m: { id: string }) => m.id),
        [ids[3], ids[2]],
      );
      assert.equal(page.headers.get('x-total-count'), '5');
      assert.equal((await s.api.get(`/v1/channels/${channel}/contacts/${contact}/messages?max=101`)).status, 422);
      assert.equal((await s.api.get(`/v1/channels/${channel}/contacts/1/messages`)).status, 404);
      assert.equal((await s.api.get(`/v1/channels/${chat}/contacts/${contact}/messages`)).status, 404);
      const other = await s.newAccount();
      assert.equal((await other.api.get(`/v1/channels/${channel}/contacts/${contact}/messages`)).status, 404);
    });

    test('channel bodies of every type are accepted by the fixtures', async () => {
      // Guards the fixtures the other suites rely on.
      assert.equal((await s.api.post('/v1/channels', channelBody('email'))).status, 201);
    });
  });

  describe(`Send Message with configured limits (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestApp(dialect, { connectors: fakeConnectors().registry, env: { DEFAULT_PHONE_REGION: 'CZ', SHARED_MODE_MESSAGE_LIMIT: '2' } });
    });
    after(async () => s?.close());

    test('a number without country code is read in the default region', async () => {
      const channel = await createChannel(s.api, 'mobile', 'test');
      const res = await send(s.api, channel, { phone_number: '601 123 456' }, TEXT);
      assert.equal(res.status, 201);
      assert.equal(res.body.contact.phone_number, '+420601123456');
    });

    test('shared mode sends at most the configured number of messages', async () => {
      const channel = await createChannel(s.api, 'appmsg_business_messages', 'shared');
      assert.equal((await send(s.api, channel, { phone_number: '+420601123456' }, TEXT)).status, 201);
      assert.equal((await send(s.api, channel, { phone_number: '+420601123457' }, TEXT)).status, 201);
      const third = await send(s.api, channel, { phone_number: '+420601123458' }, TEXT);
      assert.equal(third.status, 422);
      assert.equal(third.body.errors[0].field, 'channel.id');
      assert.match(third.body.errors[0].message, /2 messages its shared mode allows/);
      // Production mode on the same type is not limited.
      const production = await createChannel(s.api, 'appmsg_business_messages');
      for (let i = 0; i < 3; i++) assert.equal((await send(s.api, production, { phone_number: '+420601123456' }, TEXT)).status, 201);
    });

    test('concurrent sends do not overshoot the shared allowance', async () => {
      const channel = await createChannel(s.api, 'appmsg_business_messages', 'shared');
      const all = await Promise.all(Array.from({ length: 6 }, (_, i) => send(s.api, channel, { phone_number: `+42060112345${i}` }, TEXT)));
      assert.equal(all.filter((r) => r.status === 201).length, 2);
      assert.equal(all.filter((r) => r.status === 422).length, 4);
    });
  });
}
