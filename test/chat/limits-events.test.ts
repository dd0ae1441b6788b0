import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ManualClock } from '../../src/lib/clock.js';
import { openChat, type TestChatClient } from './helpers/chat-clients.js';

const PAGE = 'https://shop.example.com';

// The event budget belongs to the session (the contact), not to one connection: more tabs or
// connections of one conversation do not buy more events.
describe('Web chat: events per session over all its connections', () => {
  let s: TestServer;
  const clock = new ManualClock(Date.now());
  let channelId: string;
  before(async () => {
    s = await startTestServer('sqlite', { clock, env: { CHAT_EVENTS_BURST: '5', CHAT_EVENTS_PER_SECOND: '1' } });
    channelId = (await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' })).body.id;
    await s.api.patch(`/v1/channels/${channelId}/settings`, { domains_whitelist: [PAGE] });
  });
  after(async () => s?.close());

  const list = (client: TestChatClient) => client.request('list_messages', { pagination: { max: 1 } });

  test('the 5th event of a session is answered, the 6th refused with 429 on each of its connections; other sessions go on', async () => {
    const a = await openChat(s.origin, { channelId, origin: PAGE });
    const b = (await openChat(s.origin, { channelId, origin: PAGE, sessionId: a.sessionId })).client;
    const other = (await openChat(s.origin, { channelId, origin: PAGE })).client;
    try {
      for (const client of [a.client, a.client, a.client, b, b]) assert.ok(Array.isArray((await list(client)).messages));
      for (const client of [a.client, b]) {
        const refused = await list(client);
        assert.equal(refused.error_code, 429, JSON.stringify(refused));
        assert.equal(refused.details.retry_after, 1);
      }
      assert.ok(Array.isArray((await list(other)).messages), 'another session has its own budget');

      clock.advance(1000);
      assert.ok(Array.isArray((await list(b)).messages), 'a second later, one more event');
      assert.equal((await list(a.client)).error_code, 429);
    } finally {
      for (const c of [a.client, b, other]) c.close();
    }
  });
});
