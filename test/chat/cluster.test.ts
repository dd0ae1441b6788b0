import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { postgresAvailable } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ApiClient } from '../helpers/api-client.js';
import { openChat, sleep } from './helpers/chat-clients.js';

const PAGE = 'https://shop.example.com';
const pgOk = await postgresAvailable();
if (!pgOk && process.env.CI === 'true') throw new Error('PostgreSQL is required in CI');

// Two server instances on one PostgreSQL database: a browser connected to one of them gets what
// the API of the other sends, through the socket.io PostgreSQL adapter (no other server).
describe('Web chat across server instances (postgres)', { skip: pgOk ? false : 'PostgreSQL not reachable' }, () => {
  let a: TestServer;
  let b: TestServer;
  let apiOnB: ApiClient;
  before(async () => {
    a = await startTestServer('postgres');
    b = await startTestServer('postgres', { db: a.db });
    apiOnB = new ApiClient(b.origin, a.token);
    assert.notEqual(a.runtime.store.instanceId, b.runtime.store.instanceId);
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  test('Send Message and notifications on one instance reach connections on the other; echoes cross too', async () => {
    const { body: channel } = await a.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' });
    await a.api.patch(`/v1/channels/${channel.id}/settings`, { domains_whitelist: [PAGE] });
    const onA = await openChat(a.origin, { channelId: channel.id, origin: PAGE });
    const onB = await openChat(b.origin, { version: 2, channelId: channel.id, origin: PAGE, sessionId: onA.sessionId });
    assert.equal(onB.sessionId, onA.sessionId);
    const mine = await onA.client.request('message_client', { content: { type: 'text', payload: 'from tab A' } });
    assert.deepEqual(await onB.client.next('message_client_echo'), mine);
    const contactId = (await a.api.get(`/v1/channels/${channel.id}/contacts`)).body[0].id;

    // The adapter's listening connection may still be starting: retry the first push briefly.
    let pushed: any = null;
    for (let i = 0; i < 20 && !pushed; i++) {
      const sent = await apiOnB.post('/v1/messages', {
        channel: { id: channel.id },
        contact: { id: contactId },
        content: { type: 'text', payload: `reply ${i}` },
      });
      assert.equal(sent.status, 201, sent.text);
      pushed = await onA.client.next('message_server', { timeoutMs: 500 }).catch(() => null);
      if (pushed) assert.equal(pushed.content.payload.startsWith('reply'), true);
    }
    assert.ok(pushed, 'a message sent on instance B reached the connection on instance A');
    // The large payload path (over the NOTIFY limit) goes through the adapter's table.
    const big = 'x'.repeat(9000);
    const mark = onA.client.events.length;
    const sentBig = await apiOnB.post('/v1/messages', { channel: { id: channel.id }, contact: { id: contactId }, content: { type: 'text', payload: big } });
    assert.equal(sentBig.status, 201);
    const gotBig = await onA.client.next('message_server', { from: mark });
    assert.equal(gotBig.content.payload, big);

    const typing = await apiOnB.post('/v1/notifications', { channel: { id: channel.id }, contact: { id: contactId }, type: 'typing_on' });
    assert.equal(typing.status, 200);
    assert.deepEqual(await onA.client.next('notification_server'), { type: 'typing_on' });
    onA.client.close();
    onB.client.close();
  });

  test('an instance whose listening connection is lost closes its chat connections; connected again, a browser gets what the other instance sends', async () => {
    const { body: channel } = await a.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat lost' });
    await a.api.patch(`/v1/channels/${channel.id}/settings`, { domains_whitelist: [PAGE] });
    const first = await openChat(a.origin, { channelId: channel.id, origin: PAGE });
    await first.client.request('message_client', { content: { type: 'text', payload: 'hello' } });
    const contactId = (await a.api.get(`/v1/channels/${channel.id}/contacts`)).body[0].id;

    // The database ends the listening connections (as a restart or a pooler would): a broadcast
    // from the other instance could be lost meanwhile, so the browser must reconnect and catch up.
    const admin = new pg.Client({ connectionString: a.db.url });
    await admin.connect();
    try {
      const ended = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query like 'LISTEN%' and pid <> pg_backend_pid()`,
      );
      assert.ok((ended.rowCount ?? 0) > 0, 'there were listening connections to end');
    } finally {
      await admin.end();
    }
    await first.client.next('disconnect', { timeoutMs: 10_000 });

    let again: Awaited<ReturnType<typeof openChat>> | null = null;
    for (let i = 0; i < 40 && !again; i++) {
      again = await openChat(a.origin, { channelId: channel.id, origin: PAGE, sessionId: first.sessionId }).catch(() => null);
      if (!again) await sleep(250);
    }
    assert.ok(again, 'the browser connected again');
    let pushed: any = null;
    for (let i = 0; i < 20 && !pushed; i++) {
      const sent = await apiOnB.post('/v1/messages', {
        channel: { id: channel.id },
        contact: { id: contactId },
        content: { type: 'text', payload: `after ${i}` },
      });
      assert.equal(sent.status, 201, sent.text);
      pushed = await again.client.next('message_server', { timeoutMs: 500 }).catch(() => null);
    }
    assert.ok(pushed, 'a message sent on instance B reached the new connection on instance A');
    first.client.close();
    again.client.close();
  });
});
