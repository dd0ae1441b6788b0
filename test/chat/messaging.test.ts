import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { openChat, type ClientVersion, type TestChatClient } from './helpers/chat-clients.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { expectQuiet } from '../helpers/waits.js';

const PAGE = 'https://shop.example.com';

for (const { dialect, skip } of await dialects()) {
  describe(`Web chat conversation (${dialect})`, { skip }, () => {
    let s: TestServer;
    let hooks: WebhookReceiver;
    before(async () => {
      hooks = await startWebhookReceiver();
      s = await startTestServer(dialect, { workers: true, env: { CHAT_MAX_UPLOAD_BYTES: '2048' } });
    });
    after(async () => {
      await s?.close();
      await hooks?.close();
    });

    /** A channel with a webhook to the receiver, a whitelisted page, and one user connected. */
    async function conversation(version: ClientVersion = 4) {
      const created = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Shop chat', webhook: { url: hooks.url } });
      assert.equal(created.status, 201, created.text);
      hooks.secret = created.body.webhook.secret;
      const channelId: string = created.body.id;
      await s.api.patch(`/v1/channels/${channelId}/settings`, { domains_whitelist: [PAGE] });
      const { client, sessionId } = await openChat(s.origin, { version, channelId, origin: PAGE });
      const first = await client.request('message_client', { content: { type: 'text', payload: 'Hello' } });
      const received = await hooks.waitFor('message_received', (e) => e.data.id === first.id);
      return { channelId, client, sessionId, contactId: received.data.contact.id as string, first };
    }

    const send = (channelId: string, contactId: string, content: unknown, metadata?: unknown) =>
      s.api.post('/v1/messages', { channel: { id: channelId }, contact: { id: contactId }, content, ...(metadata ? { metadata } : {}) });

    for (const version of [4, 2] as ClientVersion[]) {
      test(`socket.io-client ${version}.x: message_client is stored and becomes a signed message_received webhook`, async () => {
        const { channelId, client, contactId, first } = await conversation(version);
        assert.equal(first.direction, 'sent');
        assert.deepEqual(first.content, { type: 'text', payload: 'Hello' });
        assert.equal(first.delivered, null);
        assert.match(first.sent, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

        const tapped = await client.request('message_client', {
          content: { type: 'text', payload: 'Yes please', quick_reply: { payload: 'QR_YES' } },
          metadata: { page: '/cart' },
        });
        const event = await hooks.waitFor('message_received', (e) => e.data.id === tapped.id);
        assert.ok(event.signatureValid, 'X-Hub-Signature verifies with the channel secret');
        assert.deepEqual(event.data, {
          id: tapped.id,
          direction: 'received',
          sent: tapped.sent,
          delivered: null,
          read: null,
          channel: { id: channelId, type: 'service_chat', name: 'Shop chat' },
          contact: { id: contactId },
          content: { type: 'text', payload: 'Yes please', quick_reply: { payload: 'QR_YES' } },
          metadata: { page: '/cart' },
        });
        // The API's view of the conversation has the user's message as received.
        const listed = await s.api.get(`/v1/channels/${channelId}/contacts/${contactId}/messages`);
        assert.equal(listed.body[0].id, tapped.id);
        assert.equal(listed.body[0].direction, 'received');
        client.close();
      });

      test(`socket.io-client ${version}.x: a message sent through the API reaches every tab; delivered and read come back`, async () => {
        const { channelId, client, sessionId, contactId } = await conversation(version);
        const tab2 = (await openChat(s.origin, { version, channelId, origin: PAGE, sessionId })).client;
        const content = { type: 'text', payload: 'How can we help?', quick_replies: [{ type: 'text', title: 'Order status', payload: 'ORDER' }] };
        const sent = await send(channelId, contactId, content, { agent: 'Eva' });
        assert.equal(sent.status, 201, sent.text);
        for (const tab of [client, tab2]) {
          const pushed = await tab.next('message_server');
          assert.deepEqual(pushed, {
            id: sent.body.id,
            direction: 'received',
            sent: sent.body.sent,
            delivered: null,
            read: null,
            content,
            metadata: { agent: 'Eva' },
          });
        }
        assert.deepEqual(await client.request('message_delivered', { message_id: sent.body.id }), {});
        const delivered = await hooks.waitFor('messages_delivered', (e) => e.data.messages?.[0]?.id === sent.body.id);
        assert.ok(delivered.signatureValid);
        assert.deepEqual(Object.keys(delivered.data).sort(), ['channel', 'contact', 'delivered_timestamp', 'messages']);
        assert.equal(delivered.data.contact.id, contactId);
        // A second tab acknowledging the same message reports nothing new.
        await tab2.request('message_delivered', { message_id: sent.body.id });
        assert.deepEqual(await client.request('messages_read', {}), {});
        const read = await hooks.waitFor('messages_read', (e) => e.data.contact.id === contactId);
        assert.ok(read.signatureValid);
        assert.match(read.data.last_read_timestamp, /Z$/);
        await expectQuiet(300, 'a second tab acknowledging the same message reports nothing new');
        assert.equal(hooks.events.filter((e) => e.event === 'messages_delivered' && e.data.messages[0].id === sent.body.id).length, 1);
        const got = await s.api.get(`/v1/channels/${channelId}/contacts/${contactId}/messages`);
        const stored = got.body.find((m: { id: string }) => m.id === sent.body.id);
        assert.equal(stored.delivered, delivered.data.delivered_timestamp);
        assert.equal(stored.read, read.data.last_read_timestamp);
        // Reading again when nothing is unread reports nothing.
        await client.request('messages_read', {});
        await expectQuiet(300, 'reading again when nothing is unread reports nothing');
        assert.equal(hooks.events.filter((e) => e.event === 'messages_read' && e.data.contact.id === contactId).length, 1);
        client.close();
        tab2.close();
      });
    }

    test('messages read before their delivery was acknowledged are reported delivered too, once', async () => {
      const { channelId, client, contactId } = await conversation();
      const a = (await send(channelId, contactId, { type: 'text', payload: 'one' })).body.id;
      const b = (await send(channelId, contactId, { type: 'text', payload: 'two' })).body.id;
      await client.request('message_delivered', { message_id: a });
      await client.request('messages_read', {});
      const read = await hooks.waitFor('messages_read', (e) => e.data.contact.id === contactId);
      const deliveredB = await hooks.waitFor('messages_delivered', (e) => e.data.messages.some((m: { id: string }) => m.id === b));
      assert.deepEqual(deliveredB.data.messages, [{ id: b }]);
      assert.equal(deliveredB.data.delivered_timestamp, read.data.last_read_timestamp);
      // A late acknowledgement of b changes nothing.
      assert.deepEqual(await client.request('message_delivered', { message_id: b }), {});
      await expectQuiet(300, 'a late acknowledgement changes nothing');
      const deliveries = hooks.events.filter((e) => e.event === 'messages_delivered' && e.data.contact.id === contactId);
      assert.deepEqual(
        deliveries.map((e) => e.data.messages.map((m: { id: string }) => m.id)),
        [[a], [b]],
      );
      // The user's own message cannot be acknowledged as delivered to them.
      const own = await client.request('message_client', { content: { type: 'text', payload: 'mine' } });
      assert.equal((await client.request('message_delivered', { message_id: own.id })).error_code, 404);
      client.close();
    });

    test('message_client_echo reaches the other tabs, not the sender', async () => {
      const { channelId, client, sessionId } = await conversation();
      const tab2 = (await openChat(s.origin, { version: 2, channelId, origin: PAGE, sessionId })).client;
      const other = (await openChat(s.origin, { channelId, origin: PAGE })).client;
      const mark = client.events.length;
      const ack = await client.request('message_client', { content: { type: 'image', payload: { url: 'https://cdn.example.com/cat.png' } } });
      const echo = await tab2.next('message_client_echo');
      assert.deepEqual(echo, ack);
      await expectQuiet(150, 'the sending tab and other sessions get no echo');
      assert.equal(client.events.slice(mark).filter((e) => e.event === 'message_client_echo').length, 0);
      assert.equal(other.received('message_client_echo').length, 0);
      for (const c of [client, tab2, other]) c.close();
    });

    test('invalid events are answered with error acknowledgements naming the field', async () => {
      const { client } = await conversation();
      const cases: Array<[string, unknown, number, string | undefined]> = [
        ['message_client', 'text', 400, undefined],
        ['message_client', {}, 422, 'content'],
        ['message_client', { content: { type: 'structure', payload: {} } }, 422, 'content.type'],
        ['message_client', { content: { type: 'text', payload: '' } }, 422, 'content.payload'],
        ['message_client', { content: { type: 'text', payload: 'x'.repeat(10_001) } }, 422, 'content.payload'],
        ['message_client', { content: { type: 'text', payload: 'ok', quick_replies: [] } }, 422, 'content.quick_replies'],
        ['message_client', { content: { type: 'text', payload: 'ok', quick_reply: { payload: 'p'.repeat(1001) } } }, 422, 'content.quick_reply.payload'],
        ['message_client', { content: { type: 'image', payload: { url: 'javascript:alert(1)' } } }, 422, 'content.payload.url'],
        ['message_client', { content: { type: 'location', payload: { latitude: 91, longitude: 0 } } }, 422, 'content.payload.latitude'],
        ['message_client', { content: { type: 'text', payload: 'ok' }, metadata: 'x' }, 422, 'metadata'],
        ['message_client', { content: { type: 'text', payload: 'ok' }, extra: 1 }, 422, 'extra'],
        ['notification_client', { type: 'typing_on', payload: {} }, 422, 'type'],
        ['notification_client', { type: 'custom' }, 422, 'payload'],
        ['postback', { payload: '' }, 422, 'payload'],
        ['postback', { payload: 'p'.repeat(1001) }, 422, 'payload'],
        ['message_delivered', { message_id: 'abc' }, 422, 'message_id'],
        ['message_delivered', { message_id: '123456789' }, 404, undefined],
        ['list_messages', { pagination: { max: 101 } }, 422, 'pagination.max'],
        ['list_messages', { pagination: { max: 0 } }, 422, 'pagination.max'],
        ['list_messages', { pagination: { max: 5, cursor_next: 'abc' } }, 422, 'pagination.cursor_next'],
      ];
      for (const [event, data, code, field] of cases) {
        const ack = await client.request(event, data);
        assert.equal(ack.error_code, code, `${event} ${JSON.stringify(data).slice(0, 80)}: ${JSON.stringify(ack)}`);
        assert.equal(typeof ack.details.message, 'string');
        if (field) assert.equal(ack.details.field, field, JSON.stringify(ack));
      }
      // Boundaries that pass.
      assert.equal((await client.request('message_client', { content: { type: 'text', payload: 'x'.repeat(10_000) } })).error_code, undefined);
      assert.equal((await client.request('postback', { payload: 'p'.repeat(1000) })).error_code, undefined);
      assert.equal((await client.request('list_messages', { pagination: { max: 100 } })).error_code, undefined);
      client.close();
    });

    test('list_messages pages the history newest first with a cursor', async () => {
      const { channelId, client, contactId, first } = await conversation(2);
      const ids = [first.id];
      for (let i = 0; i < 2; i++) ids.push((await client.request('message_client', { content: { type: 'text', payload: `m${i}` } })).id);
      for (let i = 0; i < 2; i++) ids.push((await send(channelId, contactId, { type: 'text', payload: `r${i}` })).body.id);
      const newestFirst = [...ids].reverse();
      const pages: string[][] = [];
      let cursor: string | null = null;
      for (;;) {
        const page = await client.request('list_messages', { pagination: { max: 2, cursor_next: cursor } });
        pages.push(page.messages.map((m: { id: string }) => m.id));
        assert.equal(page.cursor.has_next, pages.flat().length < ids.length);
        if (!page.cursor.has_next) break;
        cursor = page.cursor.next;
      }
      assert.deepEqual(pages, [newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
      const all = await client.request('list_messages', { pagination: { max: 10 } });
      assert.deepEqual(
        all.messages.map((m: { direction: string }) => m.direction),
        ['received', 'received', 'sent', 'sent', 'sent'],
      );
      assert.equal(all.cursor.has_next, false);
      // Without pagination: the first 10.
      assert.equal((await client.request('list_messages', {})).messages.length, 5);
      client.close();
    });

    test('postback and notification_client become webhooks', async () => {
      const { client, contactId } = await conversation();
      assert.deepEqual(await client.request('postback', { payload: 'BUY_NOW' }), {});
      const postback = await hooks.waitFor('postback', (e) => e.data.contact.id === contactId);
      assert.ok(postback.signatureValid);
      assert.deepEqual(postback.data.postback, { payload: 'BUY_NOW' });
      assert.deepEqual(await client.request('notification_client', { type: 'custom', payload: { cart: ['sku-1'] } }), {});
      const note = await hooks.waitFor('notification', (e) => e.data.contact.id === contactId);
      assert.ok(note.signatureValid);
      assert.equal(note.data.type, 'custom');
      assert.deepEqual(note.data.payload, { cart: ['sku-1'] });
      client.close();
    });

    for (const version of [4, 2] as ClientVersion[]) {
      test(`socket.io-client ${version}.x: file_upload stores the file and answers a public URL`, async () => {
        const { client } = await conversation(version);
        const bytes = Buffer.from(Array.from({ length: 2048 }, (_, i) => i % 256));
        const ack = await client.request('file_upload', { name: 'report 1.pdf', mime_type: 'application/pdf', content_buffer: bytes });
        assert.equal(ack.error_code, undefined, JSON.stringify(ack));
        assert.match(ack.url, new RegExp(`^${s.baseUrl}/files/[A-Za-z0-9]{32}/report%201\\.pdf$`));
        const res = await fetch(ack.url);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'application/pdf');
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes);
        // An HTML upload cannot act as a page of the API's origin.
        const html = await client.request('file_upload', { name: 'x.html', mime_type: 'text/html', content_buffer: Buffer.from('<script>1</script>') });
        const page = await fetch(html.url);
        assert.match(page.headers.get('content-disposition') ?? '', /^attachment/);
        assert.match(page.headers.get('content-security-policy') ?? '', /sandbox/);
        const tooLarge = await client.request('file_upload', { name: 'big.bin', mime_type: 'application/octet-stream', content_buffer: Buffer.alloc(2049) });
        assert.equal(tooLarge.error_code, 413);
        const notBinary = await client.request('file_upload', { name: 'a.txt', mime_type: 'text/plain', content_buffer: 'text' });
        assert.equal(notBinary.error_code, 422);
        // The URL of a wrong name or id is not found.
        assert.equal((await fetch(ack.url.replace('report%201.pdf', 'other.pdf'))).status, 404);
        assert.equal((await fetch(`${s.baseUrl}/files/${'A'.repeat(32)}/report%201.pdf`)).status, 404);
        // Sent as a file message, it reaches the webhook with the stored URL.
        const msg = await client.request('message_client', { content: { type: 'file', payload: { url: ack.url } } });
        const event = await hooks.waitFor('message_received', (e) => e.data.id === msg.id);
        assert.equal(event.data.content.payload.url, ack.url);
        client.close();
      });
    }

    test('too many events from one connection are refused for a moment', async () => {
      const { client } = await conversation();
      const acks = await Promise.all(Array.from({ length: 40 }, () => client.request('list_messages', { pagination: { max: 1 } })));
      const refused = acks.filter((a) => a.error_code === 429);
      assert.ok(refused.length > 0 && refused.length < 40, `${refused.length} refused`);
      client.close();
    });

    test('a deleted contact: its connection gets 404 acknowledgements, a reconnection starts afresh', async () => {
      const { channelId, client, sessionId, contactId } = await conversation();
      assert.equal((await s.api.delete(`/v1/channels/${channelId}/contacts/${contactId}`)).status, 204);
      const ack = await client.request('message_client', { content: { type: 'text', payload: 'still there?' } });
      assert.equal(ack.error_code, 404);
      client.close();
      const again = await openChat(s.origin, { channelId, origin: PAGE, sessionId });
      assert.notEqual(again.sessionId, sessionId);
      again.client.close();
    });

    test('a reconnecting client gets what was sent while it was away through list_messages', async () => {
      const { channelId, client, sessionId, contactId } = await conversation();
      client.close();
      const sent = await send(channelId, contactId, {
        type: 'structure',
        payload: [{ title: 'Shoe', buttons: [{ type: 'postback', title: 'Buy', payload: 'BUY' }] }, { title: 'Boot' }],
      });
      assert.equal(sent.status, 201, sent.text);
      const back: TestChatClient = (await openChat(s.origin, { channelId, origin: PAGE, sessionId })).client;
      const page = await back.request('list_messages', { pagination: { max: 1 } });
      assert.equal(page.messages[0].id, sent.body.id);
      assert.deepEqual(page.messages[0].content, sent.body.content);
      back.close();
    });
  });
}
