import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { connectChat, openChat, type ClientVersion, type TestChatClient } from './helpers/chat-clients.js';
import { expectQuiet } from '../helpers/waits.js';

const PAGE = 'https://shop.example.com';

for (const { dialect, skip } of await dialects()) {
  describe(`Web chat handshake (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(dialect);
    });
    after(async () => s?.close());

    async function chatChannel(whitelist: string[] | null = [PAGE]): Promise<string> {
      const { body } = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' });
      if (whitelist !== null) assert.equal((await s.api.patch(`/v1/channels/${body.id}/settings`, { domains_whitelist: whitelist })).status, 200);
      return body.id;
    }

    async function verdict(options: Parameters<typeof connectChat>[1]) {
      const client = connectChat(s.origin, options);
      try {
        const hit = await client.first(['connection_accepted', 'connection_rejected']);
        return hit.event === 'connection_accepted' ? { accepted: hit.data, client } : { rejected: hit.data, client };
      } catch (error) {
        client.close();
        throw error;
      }
    }

    /** The contact behind a connection: the one whose conversation holds what it just sent. */
    async function contactOf(channelId: string, client: TestChatClient): Promise<string> {
      const ack = await client.request('message_client', { content: { type: 'text', payload: 'who am I' } });
      const contacts = (await s.api.get(`/v1/channels/${channelId}/contacts?max=100`)).body as Array<{ id: string }>;
      for (const c of contacts) {
        const list = (await s.api.get(`/v1/channels/${channelId}/contacts/${c.id}/messages`)).body as Array<{ id: string }>;
        if (list.some((m) => m.id === ack.id)) return c.id;
      }
      throw new Error('no contact holds the message');
    }

    for (const version of [4, 2] as ClientVersion[]) {
      test(`socket.io-client ${version}.x: a whitelisted page connects and gets a session`, async () => {
        const channelId = await chatChannel();
        const r = await verdict({ version, channelId, origin: PAGE });
        assert.ok('accepted' in r, JSON.stringify(r));
        assert.match(r.accepted.session_id, /^[A-Za-z0-9]{40}$/);
        r.client.close();
        // The session is a contact, made on first contact, named by its id.
        const contacts = await s.api.get(`/v1/channels/${channelId}/contacts`);
        assert.equal(contacts.body.length, 1);
        assert.equal(contacts.body[0].name, contacts.body[0].id);
      });

      test(`socket.io-client ${version}.x: connection_rejected codes 1, 2 and 3`, async () => {
        const channelId = await chatChannel();
        const other = await chatChannel();
        const noSuch = await verdict({ version, channelId: '4242424242', origin: PAGE });
        assert.ok('rejected' in noSuch);
        assert.equal(noSuch.rejected.error_code, 2);
        assert.match(noSuch.rejected.details.message, /does not exist/);
        noSuch.client.close();

        const foreignOrigin = await verdict({ version, channelId, origin: 'https://evil.example.net' });
        assert.ok('rejected' in foreignOrigin);
        assert.equal(foreignOrigin.rejected.error_code, 3);
        foreignOrigin.client.close();

        const { client, sessionId } = await openChat(s.origin, { version, channelId: other, origin: PAGE });
        client.close();
        const wrongChannel = await verdict({ version, channelId, origin: PAGE, sessionId });
        assert.ok('rejected' in wrongChannel);
        assert.equal(wrongChannel.rejected.error_code, 1);
        // The server ends a rejected connection.
        await wrongChannel.client.next('disconnect');
        wrongChannel.client.close();
      });
    }

    test('origins: null, empty and unlisted whitelists refuse; scheme and port must match; localhost when listed', async () => {
      const unset = await chatChannel(null);
      const empty = await chatChannel([]);
      const listed = await chatChannel(['https://shop.example.com', 'http://localhost:3000', 'http://127.0.0.1:8081']);
      const cases: Array<[string, string | null, number | 'ok']> = [
        [unset, PAGE, 3],
        [empty, PAGE, 3],
        [listed, 'https://shop.example.com', 'ok'],
        [listed, 'https://SHOP.example.com', 'ok'],
        [listed, 'https://shop.example.com:443', 'ok'],
        [listed, 'http://shop.example.com', 3],
        [listed, 'https://shop.example.com:8443', 3],
        [listed, 'https://sub.shop.example.com', 3],
        [listed, 'http://localhost:3000', 'ok'],
        [listed, 'http://localhost:3001', 3],
        [listed, 'http://127.0.0.1:8081', 'ok'],
        [listed, null, 3],
        [listed, 'null', 3],
      ];
      for (const [channelId, origin, expected] of cases) {
        const r = await verdict({ channelId, origin });
        r.client.close();
        if (expected === 'ok') assert.ok('accepted' in r, `${origin} should connect to ${channelId}`);
        else assert.equal('rejected' in r ? r.rejected.error_code : 'accepted', expected, `${origin} on ${channelId}`);
      }
    });

    test('a non-service_chat channel is "no such channel"', async () => {
      const { body } = await s.api.post('/v1/channels', { type: 'appmsg', name: 'A', appmsg: { access_token: 't' } });
      const r = await verdict({ channelId: body.id, origin: PAGE });
      r.client.close();
      assert.ok('rejected' in r);
      assert.equal(r.rejected.error_code, 2);
    });

    test('a stored session resumes the same contact; an unknown one starts a new contact', async () => {
      const channelId = await chatChannel();
      const first = await openChat(s.origin, { channelId, origin: PAGE });
      first.client.close();
      const again = await openChat(s.origin, { channelId, origin: PAGE, sessionId: first.sessionId });
      again.client.close();
      assert.equal(again.sessionId, first.sessionId);
      assert.equal((await s.api.get(`/v1/channels/${channelId}/contacts`)).body.length, 1);
      const forged = await openChat(s.origin, { channelId, origin: PAGE, sessionId: 'x'.repeat(40) });
      forged.client.close();
      assert.notEqual(forged.sessionId, first.sessionId);
      assert.equal((await s.api.get(`/v1/channels/${channelId}/contacts`)).body.length, 2);
    });

    test('external_contact_id: one contact on every device, its own session per device', async () => {
      const channelId = await chatChannel();
      const laptop = await openChat(s.origin, { channelId, origin: PAGE, externalContactId: 'user-8d1f' });
      const phone = await openChat(s.origin, { channelId, origin: PAGE, externalContactId: 'user-8d1f' });
      const stranger = await openChat(s.origin, { channelId, origin: PAGE, externalContactId: 'user-other' });
      assert.notEqual(laptop.sessionId, phone.sessionId);
      assert.equal((await s.api.get(`/v1/channels/${channelId}/contacts`)).body.length, 2);
      // A message sent to that contact reaches both devices, not the stranger.
      const contactId = await contactOf(channelId, laptop.client);
      const sent = await s.api.post('/v1/messages', {
        channel: { id: channelId },
        contact: { id: contactId },
        content: { type: 'text', payload: 'Hello on every device' },
      });
      assert.equal(sent.status, 201, sent.text);
      assert.equal((await laptop.client.next('message_server')).id, sent.body.id);
      assert.equal((await phone.client.next('message_server')).id, sent.body.id);
      await expectQuiet(100, "a stranger's session gets no message of another session");
      assert.deepEqual(stranger.client.received('message_server'), []);
      for (const c of [laptop, phone, stranger]) c.client.close();
      // Resuming a session with the same external id keeps it; with another external id, that id wins.
      const resumed = await openChat(s.origin, { channelId, origin: PAGE, sessionId: laptop.sessionId, externalContactId: 'user-8d1f' });
      assert.equal(resumed.sessionId, laptop.sessionId);
      resumed.client.close();
      const switched = await openChat(s.origin, { channelId, origin: PAGE, sessionId: laptop.sessionId, externalContactId: 'user-other' });
      assert.notEqual(switched.sessionId, laptop.sessionId);
      switched.client.close();
      assert.equal((await s.api.get(`/v1/channels/${channelId}/contacts`)).body.length, 2);
    });

    test('a deleted channel refuses new connections', async () => {
      const channelId = await chatChannel();
      assert.equal((await s.api.delete(`/v1/channels/${channelId}`)).status, 204);
      const r = await verdict({ channelId, origin: PAGE });
      r.client.close();
      assert.ok('rejected' in r);
      assert.equal(r.rejected.error_code, 2);
    });
  });
}
