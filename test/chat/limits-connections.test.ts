import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ManualClock } from '../../src/lib/clock.js';
import { connectChat, openChat, sleep, type ChatConnectOptions, type TestChatClient } from './helpers/chat-clients.js';

const PAGE = 'https://shop.example.com';

async function verdict(server: string, options: ChatConnectOptions): Promise<{ event: string; data: any; client: TestChatClient }> {
  const client = connectChat(server, options);
  const hit = await client.first(['connection_accepted', 'connection_rejected']);
  return { ...hit, client };
}

async function chatChannel(s: TestServer): Promise<string> {
  const { body } = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' });
  await s.api.patch(`/v1/channels/${body.id}/settings`, { domains_whitelist: [PAGE] });
  return body.id;
}

for (const { dialect, skip } of await dialects()) {
  describe(`Web chat: connections and new sessions per client address (${dialect})`, { skip }, () => {
    let s: TestServer;
    // Buckets refill only when the test moves the clock.
    const clock = new ManualClock(Date.now());
    const clients: TestChatClient[] = [];
    before(async () => {
      s = await startTestServer(dialect, {
        clock,
        env: { CHAT_CONNECTIONS_PER_ADDRESS: '4', CHAT_SESSIONS_BURST: '2', CHAT_SESSIONS_PER_ADDRESS_PER_MINUTE: '1', CHAT_TRUSTED_PROXIES: 'loopback' },
      });
    });
    after(async () => {
      for (const c of clients) c.close();
      await s?.close();
    });
    const forwarded = (address: string) => ({ 'x-forwarded-for': address });

    test('the 2nd new session of an address is accepted, the 3rd rejected with code 4 until the bucket refills; resuming is not a new session', async () => {
      const channelId = await chatChannel(s);
      const address = forwarded('203.0.113.10');
      const sessions: string[] = [];
      for (let i = 0; i < 2; i++) {
        const { client, sessionId } = await openChat(s.origin, { channelId, origin: PAGE, headers: address });
        clients.push(client);
        sessions.push(sessionId);
      }
      const third = await verdict(s.origin, { channelId, origin: PAGE, headers: address });
      clients.push(third.client);
      assert.equal(third.event, 'connection_rejected', JSON.stringify(third.data));
      assert.equal(third.data.error_code, 4);
      assert.equal(third.data.details.retry_after, 60);
      assert.match(third.data.details.message, /Too many new conversations/);

      // A stored session resumes; another address starts its own.
      const resumed = await verdict(s.origin, { channelId, origin: PAGE, headers: address, sessionId: sessions[0] });
      clients.push(resumed.client);
      assert.equal(resumed.event, 'connection_accepted');
      assert.equal(resumed.data.session_id, sessions[0]);
      const other = await verdict(s.origin, { channelId, origin: PAGE, headers: forwarded('203.0.113.11') });
      clients.push(other.client);
      assert.equal(other.event, 'connection_accepted');
      // The refused connection made no contact.
      const contacts = await s.api.get(`/v1/channels/${channelId}/contacts?max=100`);
      assert.equal(contacts.body.length, 3);

      clock.advance(60_000);
      const later = await verdict(s.origin, { channelId, origin: PAGE, headers: address });
      clients.push(later.client);
      assert.equal(later.event, 'connection_accepted');
    });

    test('IPv6 clients count by their /64', async () => {
      const channelId = await chatChannel(s);
      for (const address of ['2001:db8::1', '2001:db8::2']) {
        const r = await verdict(s.origin, { channelId, origin: PAGE, headers: forwarded(address) });
        clients.push(r.client);
        assert.equal(r.event, 'connection_accepted', address);
      }
      const same64 = await verdict(s.origin, { channelId, origin: PAGE, headers: forwarded('2001:db8::ffff:3') });
      clients.push(same64.client);
      assert.equal(same64.event, 'connection_rejected');
      assert.equal(same64.data.error_code, 4);
      const next64 = await verdict(s.origin, { channelId, origin: PAGE, headers: forwarded('2001:db8:0:1::1') });
      clients.push(next64.client);
      assert.equal(next64.event, 'connection_accepted');
    });

    test('the 4th open connection of an address is accepted, the 5th rejected with code 4; closing one frees its slot', async () => {
      const channelId = await chatChannel(s);
      const address = forwarded('198.51.100.7');
      const first = await openChat(s.origin, { channelId, origin: PAGE, headers: address });
      const open = [first.client];
      for (let i = 0; i < 3; i++) open.push((await openChat(s.origin, { channelId, origin: PAGE, headers: address, sessionId: first.sessionId })).client);
      const fifth = await verdict(s.origin, { channelId, origin: PAGE, headers: address, sessionId: first.sessionId });
      assert.equal(fifth.event, 'connection_rejected', JSON.stringify(fifth.data));
      assert.equal(fifth.data.error_code, 4);
      assert.match(fifth.data.details.message, /at most 4 at once/);
      fifth.client.close();

      open.pop()!.close();
      let accepted = false;
      for (let i = 0; i < 50 && !accepted; i++) {
        const again = await verdict(s.origin, { channelId, origin: PAGE, headers: address, sessionId: first.sessionId });
        again.client.close();
        accepted = again.event === 'connection_accepted';
        if (!accepted) await sleep(100);
      }
      assert.ok(accepted, 'a connection is accepted once another closed');
      for (const c of open) c.close();
    });
  });
}

describe('Web chat: without trusted proxies, X-Forwarded-For is not believed', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer('sqlite', { clock: new ManualClock(Date.now()), env: { CHAT_SESSIONS_BURST: '1', CHAT_SESSIONS_PER_ADDRESS_PER_MINUTE: '1' } });
  });
  after(async () => s?.close());

  test('a client naming another address in the header still counts as its own', async () => {
    const channelId = await chatChannel(s);
    const first = await verdict(s.origin, { channelId, origin: PAGE, headers: { 'x-forwarded-for': '203.0.113.1' } });
    first.client.close();
    assert.equal(first.event, 'connection_accepted');
    const second = await verdict(s.origin, { channelId, origin: PAGE, headers: { 'x-forwarded-for': '203.0.113.2' } });
    second.client.close();
    assert.equal(second.event, 'connection_rejected');
    assert.equal(second.data.error_code, 4);
  });
});
