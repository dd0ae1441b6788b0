import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createChannel, fakeConnectors, send } from './messages-fixtures.js';

const DAY = 86_400_000;
const TEXT = { type: 'text', payload: 'Hello' };

/**
 * Retention through the API on both stores: an idempotency key answers with its message until
 * its age and makes a new message after it; messages past RETENTION_MESSAGES_DAYS are gone
 * (404) while a contact's newest stays and the sends made during the purge are all kept.
 */
for (const { dialect, skip } of await dialects()) {
  describe(`Retention through the API (${dialect})`, { skip }, () => {
    let s: TestServer;
    let channel: string;
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    before(async () => {
      s = await startTestApp(dialect, {
        clock,
        connectors: fakeConnectors().registry,
        env: { RETENTION_MESSAGES_DAYS: '7', RETENTION_IDEMPOTENCY_KEYS_DAYS: '1', RETENTION_BATCH_SIZE: '2', RETENTION_BATCH_PAUSE_MS: '0' },
      });
      channel = await createChannel(s.api, 'mobile', 'test');
    });
    after(async () => s?.close());

    const path = (location: string | null) => new URL(location!).pathname;

    test('an idempotency key replays its message up to its age, and makes a new message past it', async () => {
      const contact = { phone_number: '+420601123001' };
      const key = { 'idempotency-key': 'order-1' };
      const first = await send(s.api, channel, contact, TEXT, {}, key);
      assert.equal(first.status, 201);
      clock.advance(DAY);
      await s.runtime.purgeRetention();
      const replay = await send(s.api, channel, contact, TEXT, {}, key);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true', 'exactly its age: still answered');
      assert.equal(replay.headers.get('location'), first.headers.get('location'));
      clock.advance(1);
      await s.runtime.purgeRetention();
      const fresh = await send(s.api, channel, contact, TEXT, {}, key);
      assert.equal(fresh.status, 201);
      assert.equal(fresh.headers.get('idempotent-replayed'), null, 'past its age: a new message');
      assert.notEqual(fresh.headers.get('location'), first.headers.get('location'));
      assert.equal((await s.api.get(path(first.headers.get('location')))).status, 200, 'the first message itself is kept');
    });

    test("messages past their age are deleted while sends go on; a contact's newest is kept", async () => {
      const alice = { phone_number: '+420601123002' };
      const carol = { phone_number: '+420601123004' };
      const carolsOnly = await send(s.api, channel, carol, TEXT);
      const older = await send(s.api, channel, alice, TEXT);
      clock.advance(1);
      const atAge = await send(s.api, channel, alice, TEXT);
      // The first two are now just past 7 days, the third exactly 7 days old.
      clock.advance(7 * DAY);
      const bob = { phone_number: '+420601123003' };
      const [counts, ...during] = await Promise.all([s.runtime.purgeRetention(), ...Array.from({ length: 20 }, () => send(s.api, channel, bob, TEXT))]);
      assert.ok(counts && counts.messages >= 1);
      assert.equal((await s.api.get(path(older.headers.get('location')))).status, 404);
      assert.equal((await s.api.get(path(atAge.headers.get('location')))).status, 200, 'exactly its age: kept');
      assert.equal((await s.api.get(path(carolsOnly.headers.get('location')))).status, 200, "past its age, but its contact's newest");
      for (const res of during as Array<Awaited<ReturnType<typeof send>>>) {
        assert.equal(res.status, 201);
        assert.equal((await s.api.get(path(res.headers.get('location')))).status, 200);
      }
    });
  });
}
