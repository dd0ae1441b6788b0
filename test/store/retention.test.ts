import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Insertable } from 'kysely';
import { dialects, openTestStore, type TestDatabase } from '../helpers/databases.js';
import { seedChannel } from '../helpers/store-rows.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import type { Database } from '../../src/store/schema.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/lib/logger.js';
import { firstIdAt } from '../../src/lib/ids.js';
import { LocalFileStore, type FileStore } from '../../src/files/file-store.js';
import { StoredFiles } from '../../src/files/stored-files.js';
import { RetentionPurge, type RetentionCounts, type RetentionSettings } from '../../src/domain/retention/purge.js';

/**
 * The retention purge (domain/retention/purge.ts over store/repos/retention.ts) on both
 * dialects: each kind of row at its age's boundary (one just under it kept, one just over it
 * deleted), rows still needed kept whatever their age, sends going on meanwhile, the bytes of
 * purged files removed only once their rows' deletion committed, and one pass at a time.
 */

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);
const MESSAGES_MS = 10 * DAY;
const EVENTS_MS = 10 * DAY;
const SETTINGS: RetentionSettings = {
  deliveriesMs: 30 * DAY,
  jobsMs: 7 * DAY,
  idempotencyKeysMs: 15 * DAY,
  messagesMs: MESSAGES_MS,
  eventsMs: EVENTS_MS,
  intervalMs: 3_600_000,
  // Small batches, so every kind takes several.
  batchSize: 3,
  pauseMs: 0,
  loadSharePercent: 50,
  busyBatchMs: 10,
};
const BASE_URL = 'http://localhost:8080/v1';
const ACCOUNT = 1;
const CHANNEL = 2;
const logger = createLogger('silent');

/** Just over and just under an age: deleted and kept. */
const over = (ageMs: number) => NOW - ageMs - 1;
const under = (ageMs: number) => NOW - ageMs + 1;

for (const { dialect, skip } of await dialects()) {
  describe(`Retention purge (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let store: Store;
    /** A second connection: it sees only what committed. */
    let observer: Store;
    let filesDir: string;
    let fileStore: FileStore;
    let files: StoredFiles;
    const clock = new ManualClock(NOW);
    let seq = 0;
    /** An id as the service makes it at `at` (ids grow with time). */
    const idAt = (at: number) => firstIdAt(at) + (seq++ % 4096);
    /** File rows that still existed (as another connection saw them) when their bytes were removed. */
    const seenAtRemoval: string[] = [];
    const removed: string[] = [];
    let counts: RetentionCounts | null = null;
    let sent: number[] = [];

    // What the scenario expects, by name.
    const kept = new Map<string, { table: keyof Database; id: number | string }>();
    const gone = new Map<string, { table: keyof Database; id: number | string }>();

    async function contact(name: string): Promise<number> {
      const id = idAt(NOW - 100 * DAY);
      await store.contacts.insert({
        id,
        account_id: ACCOUNT,
        channel_id: CHANNEL,
        external_id: name,
        phone_number: null,
        email: null,
        user_ref: null,
        name: null,
        profile: '{}',
        created_at: NOW - 100 * DAY,
        updated_at: NOW - 100 * DAY,
      });
      return id;
    }

    async function message(contactId: number, at: number, fields: Partial<Insertable<Database['messages']>> = {}): Promise<number> {
      const id = idAt(at);
      await store.db
        .insertInto('messages')
        .values({
          id,
          account_id: ACCOUNT,
          channel_id: CHANNEL,
          contact_id: contactId,
          direction: 'sent',
          content: JSON.stringify({ type: 'text', text: 'hi' }),
          metadata: null,
          status: 'sent',
          external_id: null,
          error: null,
          idempotency_key: null,
          request_hash: null,
          sent_at: at,
          delivered_at: null,
          read_at: null,
          created_at: at,
          ...fields,
        })
        .execute();
      return id;
    }

    async function event(at: number, fields: { messageId?: number; contactId?: number } = {}): Promise<number> {
      const id = idAt(at);
      await store.db
        .insertInto('events')
        .values({
          id,
          account_id: ACCOUNT,
          channel_id: CHANNEL,
          contact_id: fields.contactId ?? null,
          message_id: fields.messageId ?? null,
          type: fields.messageId ? 'message_echo' : 'opt_in',
          body: '{}',
          created_at: at,
          inbound_key: null,
        })
        .execute();
      return id;
    }

    /** A delivery of `eventId` last changed at `at`, with one attempt; answers both ids. */
    async function delivery(eventId: number, status: string, at: number): Promise<{ id: number; attempt: number }> {
      const id = idAt(at);
      await store.db
        .insertInto('deliveries')
        .values({
          id,
          event_id: eventId,
          account_id: ACCOUNT,
          channel_id: CHANNEL,
          webhook_id: 1,
          status,
          attempts: 1,
          next_attempt_at: at,
          locked_until: status === 'pending' ? NOW + DAY : null,
          last_status_code: null,
          last_error: null,
          created_at: at,
          updated_at: at,
          lease_id: null,
          locked_by: null,
        })
        .execute();
      const attempt = idAt(at);
      await store.db
        .insertInto('delivery_attempts')
        .values({
          id: attempt,
          delivery_id: id,
          attempted_at: at,
          url: 'https://example.com/hook',
          status_code: 500,
          duration_ms: 5,
          response_excerpt: null,
          error: null,
        })
        .execute();
      return { id, attempt };
    }

    async function job(status: string, at: number, messageId: number | null = null): Promise<number> {
      const id = idAt(at);
      await store.db
        .insertInto('jobs')
        .values({
          id,
          account_id: ACCOUNT,
          channel_id: CHANNEL,
          message_id: messageId,
          kind: `k${id}`,
          payload: '{}',
          status,
          attempts: 1,
          max_attempts: 1,
          run_at: at,
          expires_at: null,
          lease_id: status === 'running' ? 1 : null,
          leased_until: status === 'running' ? NOW + DAY : null,
          instance_id: null,
          last_error: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      return id;
    }

    async function file(contactId: number, name: string): Promise<{ id: string; url: string; key: string }> {
      const saved = await files.save({ accountId: ACCOUNT, channelId: CHANNEL, contactId, name, mimeType: 'text/plain', bytes: Buffer.from(name) });
      const row = await files.find(saved.id);
      return { id: saved.id, url: saved.url, key: row!.storage_key };
    }

    async function exists(table: keyof Database, id: number | string): Promise<boolean> {
      const row = await store.db
        .selectFrom(table)
        .select('id' as never)
        .where('id' as never, '=', id as never)
        .executeTakeFirst();
      return row !== undefined;
    }

    before(async () => {
      ({ db, store } = await openTestStore(dialect));
      observer = await openStore(db.url);
      filesDir = mkdtempSync(join(tmpdir(), 'parley-retention-'));
      const local = new LocalFileStore(filesDir);
      fileStore = {
        put: (key, bytes) => local.put(key, bytes),
        putStream: (key, source) => local.putStream(key, source),
        open: (key) => local.open(key),
        async remove(keys) {
          const rows = await observer.db
            .selectFrom('files')
            .select('storage_key')
            .where('storage_key', 'in', [...keys])
            .execute();
          seenAtRemoval.push(...rows.map((r) => r.storage_key));
          removed.push(...keys);
          await local.remove(keys);
        },
      };
      files = new StoredFiles({ store, files: fileStore, clock, baseUrl: BASE_URL });
      await seedChannel(store, { account: ACCOUNT, channel: CHANNEL }, 'service_chat', { webhook_id: 1, webhook_url: 'https://example.com/hook' });

      // Webhook deliveries (30 days from their last change): events made recently, so only the delivery's age counts.
      const hookEvent = await event(NOW - DAY);
      const dOld = await delivery(hookEvent, 'delivered', over(SETTINGS.deliveriesMs));
      gone.set('delivered delivery just over its age', { table: 'deliveries', id: dOld.id });
      gone.set("that delivery's attempt", { table: 'delivery_attempts', id: dOld.attempt });
      gone.set('failed delivery over its age', { table: 'deliveries', id: (await delivery(hookEvent, 'failed', over(SETTINGS.deliveriesMs))).id });
      gone.set('dropped delivery over its age', { table: 'deliveries', id: (await delivery(hookEvent, 'dropped', NOW - 90 * DAY)).id });
      const dYoung = await delivery(hookEvent, 'delivered', under(SETTINGS.deliveriesMs));
      kept.set('delivered delivery just under its age', { table: 'deliveries', id: dYoung.id });
      kept.set("that delivery's attempt", { table: 'delivery_attempts', id: dYoung.attempt });
      const dPending = await delivery(hookEvent, 'pending', NOW - 90 * DAY);
      kept.set('pending delivery (in flight) of any age', { table: 'deliveries', id: dPending.id });
      kept.set("the pending delivery's attempt", { table: 'delivery_attempts', id: dPending.attempt });
      for (let i = 0; i < 7; i++) gone.set(`backlog delivery ${i}`, { table: 'deliveries', id: (await delivery(hookEvent, 'delivered', NOW - 60 * DAY)).id });

      // Jobs (7 days from their end).
      gone.set('done job just over its age', { table: 'jobs', id: await job('done', over(SETTINGS.jobsMs)) });
      gone.set('failed job over its age', { table: 'jobs', id: await job('failed', over(SETTINGS.jobsMs)) });
      gone.set('expired job over its age', { table: 'jobs', id: await job('expired', NOW - 50 * DAY) });
      kept.set('done job just under its age', { table: 'jobs', id: await job('done', under(SETTINGS.jobsMs)) });
      kept.set('pending job of any age', { table: 'jobs', id: await job('pending', NOW - 90 * DAY) });
      kept.set('running job of any age', { table: 'jobs', id: await job('running', NOW - 90 * DAY) });

      // Messages (10 days): every one below has a newer message of its contact in its direction unless said.
      const alice = await contact('alice');
      const mOld = await message(alice, over(MESSAGES_MS));
      gone.set('message just over its age', { table: 'messages', id: mOld });
      const echo = await event(over(MESSAGES_MS), { messageId: mOld });
      gone.set("that message's event", { table: 'events', id: echo });
      gone.set("that event's finished delivery (young)", { table: 'deliveries', id: (await delivery(echo, 'delivered', NOW - DAY)).id });
      gone.set("that message's finished job", { table: 'jobs', id: await job('done', NOW - DAY, mOld) });
      const withLiveJob = await message(alice, NOW - 40 * DAY);
      await job('pending', NOW - 40 * DAY, withLiveJob);
      kept.set('old message with a pending job', { table: 'messages', id: withLiveJob });
      const withRunningJob = await message(alice, NOW - 40 * DAY);
      await job('running', NOW - 40 * DAY, withRunningJob);
      kept.set('old message with a running job', { table: 'messages', id: withRunningJob });
      const withPendingDelivery = await message(alice, NOW - 40 * DAY);
      const pendingEcho = await event(NOW - 40 * DAY, { messageId: withPendingDelivery });
      await delivery(pendingEcho, 'pending', NOW - 40 * DAY);
      kept.set('old message whose event is still to be delivered', { table: 'messages', id: withPendingDelivery });
      kept.set('its event', { table: 'events', id: pendingEcho });
      // Idempotency keys: 15 days. A key under its age keeps its message, whatever the message's age.
      const keyLive = await message(alice, under(SETTINGS.idempotencyKeysMs), { idempotency_key: 'live', request_hash: 'h1' });
      kept.set('old message whose idempotency key is under its age', { table: 'messages', id: keyLive });
      const keyDead = await message(alice, over(SETTINGS.idempotencyKeysMs), { idempotency_key: 'dead', request_hash: 'h2' });
      gone.set('old message whose idempotency key is over its age', { table: 'messages', id: keyDead });
      // Files: one named only by an old message (gone with it), one also named by a kept message,
      // one named by nothing (a profile picture: not the purge's).
      const only = await file(alice, 'only.txt');
      const shared = await file(alice, 'shared.txt');
      const picture = await file(alice, 'picture.png');
      const withFiles = await message(alice, NOW - 40 * DAY, {
        direction: 'received',
        content: JSON.stringify({ type: 'file', payload: { url: only.url } }),
      });
      gone.set('old message naming a file only it names', { table: 'messages', id: withFiles });
      const sharedOld = await message(alice, NOW - 39 * DAY, {
        direction: 'received',
        content: JSON.stringify({ type: 'file', payload: { url: shared.url } }),
      });
      gone.set('old message naming a file a kept message names too', { table: 'messages', id: sharedOld });
      gone.set('file named only by purged messages', { table: 'files', id: only.id });
      kept.set('file also named by a kept message', { table: 'files', id: shared.id });
      kept.set('file no message names', { table: 'files', id: picture.id });
      const young = await message(alice, under(MESSAGES_MS));
      kept.set('message just under its age', { table: 'messages', id: young });
      const aliceNewestReceived = await message(alice, NOW - 20 * DAY, {
        direction: 'received',
        content: JSON.stringify({ type: 'image', payload: { url: shared.url } }),
      });
      kept.set("old message that is its contact's newest received", { table: 'messages', id: aliceNewestReceived });
      const bob = await contact('bob');
      const bobOnly = await message(bob, NOW - 80 * DAY);
      kept.set("a contact's only message, however old (the conversation list shows it)", { table: 'messages', id: bobOnly });

      // Events about no message (10 days).
      gone.set('event just over its age', { table: 'events', id: await event(over(EVENTS_MS), { contactId: bob }) });
      kept.set('event just under its age', { table: 'events', id: await event(under(EVENTS_MS), { contactId: bob }) });
      const withFinished = await event(NOW - 40 * DAY, { contactId: bob });
      await delivery(withFinished, 'failed', NOW - 40 * DAY);
      gone.set('old event whose delivery finished', { table: 'events', id: withFinished });
      const withPending = await event(NOW - 40 * DAY, { contactId: bob });
      await delivery(withPending, 'pending', NOW - 40 * DAY);
      kept.set('old event whose delivery is still to be made', { table: 'events', id: withPending });

      // Sends go on while the purge runs (to a contact of their own): every one of them is kept.
      const sender = await contact('sender');
      let sending = true;
      const sends = (async () => {
        const ids: number[] = [];
        while (sending || ids.length < 50) {
          const at = clock.now();
          const messageId = idAt(at);
          const eventId = idAt(at);
          await store.batchWrite({
            insert: {
              messages: [
                {
                  id: messageId,
                  account_id: ACCOUNT,
                  channel_id: CHANNEL,
                  contact_id: sender,
                  direction: 'sent',
                  content: '{}',
                  metadata: null,
                  status: 'accepted',
                  external_id: null,
                  error: null,
                  idempotency_key: `send-${messageId}`,
                  request_hash: 'h',
                  sent_at: at,
                  delivered_at: null,
                  read_at: null,
                  created_at: at,
                },
              ],
              events: [
                {
                  id: eventId,
                  account_id: ACCOUNT,
                  channel_id: CHANNEL,
                  contact_id: null,
                  message_id: messageId,
                  type: 'message_echo',
                  body: '{}',
                  created_at: at,
                  inbound_key: null,
                },
              ],
              deliveries: [
                {
                  id: idAt(at),
                  event_id: eventId,
                  account_id: ACCOUNT,
                  channel_id: CHANNEL,
                  webhook_id: 1,
                  status: 'pending',
                  attempts: 0,
                  next_attempt_at: at,
                  locked_until: null,
                  last_status_code: null,
                  last_error: null,
                  created_at: at,
                  updated_at: at,
                  lease_id: null,
                  locked_by: null,
                },
              ],
            },
          });
          ids.push(messageId);
        }
        return ids;
      })();
      const purge = new RetentionPurge({ store, files, clock, settings: SETTINGS, logger });
      try {
        counts = await purge.purge();
      } finally {
        sending = false;
      }
      sent = await sends;
    });
    after(async () => {
      await observer?.close();
      await store?.close();
      await db?.drop();
      if (filesDir) rmSync(filesDir, { recursive: true, force: true });
    });

    test('rows just over their age and finished are deleted, with their attempts, events and jobs', async () => {
      const left = [];
      for (const [name, { table, id }] of gone) if (await exists(table, id)) left.push(name);
      assert.deepEqual(left, []);
    });

    test('rows just under their age, in flight or still needed are kept, whatever their age', async () => {
      const missing = [];
      for (const [name, { table, id }] of kept) if (!(await exists(table, id))) missing.push(name);
      assert.deepEqual(missing, []);
    });

    test('the counts are of the rows deleted', () => {
      assert.ok(counts);
      assert.equal(counts.deliveries, 11, "three at their boundary, seven of the backlog, and the old event's failed one");
      assert.equal(counts.jobs, 3);
      assert.equal(counts.messages, 4);
      assert.equal(counts.events, 2, 'events of no message; those of purged messages go with them');
      assert.equal(counts.files, 1);
    });

    test('idempotency keys over their age are forgotten, the others kept', async () => {
      const keys = await store.db.selectFrom('messages').select(['idempotency_key', 'request_hash']).where('idempotency_key', 'in', ['live', 'dead']).execute();
      assert.deepEqual(keys, [{ idempotency_key: 'live', request_hash: 'h1' }]);
      assert.equal(counts?.idempotencyKeys, 0, 'the message of the expired key was deleted with it');
      // A key over its age on a message that is kept (its contact's newest) is forgotten; the message stays.
      const carol = await contact('carol');
      const keyed = await message(carol, NOW - 20 * DAY, { idempotency_key: 'old', request_hash: 'h3' });
      const fresh = await message(carol, under(SETTINGS.idempotencyKeysMs), { direction: 'received', idempotency_key: 'fresh', request_hash: 'h4' });
      const again = await new RetentionPurge({ store, files, clock, settings: { ...SETTINGS, messagesMs: null, eventsMs: null }, logger }).purge();
      assert.equal(again?.idempotencyKeys, 1);
      const rows = await store.db
        .selectFrom('messages')
        .select(['id', 'idempotency_key', 'request_hash'])
        .where('id', 'in', [keyed, fresh])
        .orderBy('id')
        .execute();
      assert.deepEqual(rows, [
        { id: keyed, idempotency_key: null, request_hash: null },
        { id: fresh, idempotency_key: 'fresh', request_hash: 'h4' },
      ]);
    });

    test('every message written while the purge ran is kept, with its event and delivery', async () => {
      assert.ok(sent.length >= 50);
      const rows = await store.db.selectFrom('messages').select('id').where('id', 'in', sent).execute();
      assert.equal(rows.length, sent.length);
      const deliveries = await store.db
        .selectFrom('deliveries as d')
        .innerJoin('events as e', 'e.id', 'd.event_id')
        .select('d.id')
        .where('e.message_id', 'in', sent)
        .where('d.status', '=', 'pending')
        .execute();
      assert.equal(deliveries.length, sent.length);
    });

    test("a purged file's bytes are removed only after its row's deletion committed", async () => {
      const only = gone.get('file named only by purged messages')!;
      assert.equal(removed.length, 1);
      assert.deepEqual(seenAtRemoval, [], 'another connection still saw the row when its bytes were removed');
      assert.equal(existsSync(join(filesDir, removed[0]!)), false);
      assert.ok(removed[0]!.endsWith(String(only.id)));
      const shared = kept.get('file also named by a kept message')!;
      const row = await files.find(String(shared.id));
      assert.ok(row && existsSync(join(filesDir, row.storage_key)));
    });

    test('messages and events are kept when no age is set for them (the default)', async () => {
      const dave = await contact('dave');
      const oldA = await message(dave, NOW - 400 * DAY);
      await message(dave, NOW - 300 * DAY);
      const oldEvent = await event(NOW - 400 * DAY, { contactId: dave });
      const pass = await new RetentionPurge({ store, files, clock, settings: { ...SETTINGS, messagesMs: null, eventsMs: null }, logger }).purge();
      assert.equal(pass?.messages, 0);
      assert.equal(pass?.events, 0);
      assert.equal(await exists('messages', oldA), true);
      assert.equal(await exists('events', oldEvent), true);
    });

    test('a batch the store was busy for (another connection held the lock) runs again, and the pass goes on', async () => {
      const frank = await contact('frank');
      const old = await message(frank, NOW - 400 * DAY);
      await message(frank, NOW - 300 * DAY);
      let calls = 0;
      const busy = Object.assign(new Error('database is locked'), { code: dialect === 'sqlite' ? 'SQLITE_BUSY' : '55P03' });
      const retention = store.retention;
      // The store as the purge sees it, its first batch refused as busy.
      const flaky = Object.create(store) as typeof store;
      Object.defineProperty(flaky, 'retention', {
        value: Object.assign(Object.create(retention) as typeof retention, {
          deliveries: (before: number, limit: number) => (++calls === 1 ? Promise.reject(busy) : retention.deliveries(before, limit)),
        }),
      });
      const pass = await new RetentionPurge({ store: flaky, files, clock, settings: SETTINGS, logger }).purge();
      assert.ok(pass, 'the pass ran to its end');
      assert.ok(calls >= 2, `the busy batch ran again (${calls} calls)`);
      assert.equal(await exists('messages', old), false, 'and the rest of the pass was done');
    });

    test('one pass at a time: a pass while another holds the purge does nothing', async () => {
      const other = dialect === 'postgres' ? await openStore(db.url) : store;
      try {
        const erin = await contact('erin');
        const old = await message(erin, NOW - 400 * DAY);
        await message(erin, NOW - 300 * DAY);
        const second = new RetentionPurge({ store: other, files, clock, settings: SETTINGS, logger });
        const held = await store.runAlone('retention', async () => {
          const refused = await second.purge();
          return { refused, stillThere: await exists('messages', old) };
        });
        assert.deepEqual(held, { ran: true, value: { refused: null, stillThere: true } });
        const after = await second.purge();
        assert.ok(after && after.messages >= 1, 'once the hold is let go, the next pass runs');
        assert.equal(await exists('messages', old), false);
      } finally {
        if (other !== store) await other.close();
      }
    });
  });
}
