/**
 * The service side of the retention benchmark: the whole service on BENCH_DATABASE_URL, as in
 * the Send Message benchmark (an enterprise account, a mobile channel in test mode), after
 * writing a backlog of BENCH_ROWS finished rows 60 days old (messages of up to 1,000 contacts, each
 * with its `message_echo` event, a delivered webhook delivery with one attempt, and a done job:
 * five rows a message), every one past the ages the benchmark sets. Prints one JSON line
 * {port, token, channelId, seeded, seedSeconds} when ready. With BENCH_PURGE_AFTER_MS, starts
 * one retention pass that long after (when the load's warm-up ends). On SIGTERM closes and
 * prints {stored (messages the load sent), purge: {startedAt, seconds, counts} | null, left (rows of the tables purged)}.
 */
import type { Insertable } from 'kysely';
import { startSendTarget } from '../shared/send-target.js';
import { IdGenerator } from '../../src/lib/ids.js';
import type { Database } from '../../src/store/schema.js';
import type { RetentionCounts } from '../../src/domain/retention/purge.js';

const rows = Number(process.env.BENCH_ROWS ?? '200000');
const purgeAfterMs = process.env.BENCH_PURGE_AFTER_MS === undefined ? null : Number(process.env.BENCH_PURGE_AFTER_MS);

const { runtime, account, accessToken, channel } = await startSendTarget({
  // Every kind of the backlog is past its age; batch size and pause are the defaults unless given.
  RETENTION_MESSAGES_DAYS: '30',
  RETENTION_EVENTS_DAYS: '30',
  ...(process.env.RETENTION_BATCH_SIZE ? { RETENTION_BATCH_SIZE: process.env.RETENTION_BATCH_SIZE } : {}),
  ...(process.env.RETENTION_BATCH_PAUSE_MS ? { RETENTION_BATCH_PAUSE_MS: process.env.RETENTION_BATCH_PAUSE_MS } : {}),
});

/** Writes the backlog in transactions of 1,000 messages (5,000 rows). */
async function seed(): Promise<number> {
  const db = runtime.store.db;
  const at = Date.now() - 60 * 86_400_000;
  // Ids of that time, from an instance number no process of the benchmark holds.
  const ids = new IdGenerator(15, () => at);
  const channelId = Number(channel.id);
  const messages = Math.ceil(rows / 5);
  // Ten messages or more a contact: all but each contact's newest are past their age and purged.
  const contacts: Array<Insertable<Database['contacts']>> = Array.from({ length: Math.max(1, Math.min(1000, Math.floor(messages / 10))) }, (_, i) => ({
    id: ids.nextNumber(),
    account_id: account.id,
    channel_id: channelId,
    external_id: null,
    phone_number: `+4207${String(i).padStart(8, '0')}`,
    email: null,
    user_ref: null,
    name: null,
    profile: '{}',
    created_at: at,
    updated_at: at,
  }));
  await db.insertInto('contacts').values(contacts).execute();
  for (let done = 0; done < messages; done += 1000) {
    const n = Math.min(1000, messages - done);
    const m: Array<Insertable<Database['messages']>> = [];
    const e: Array<Insertable<Database['events']>> = [];
    const d: Array<Insertable<Database['deliveries']>> = [];
    const a: Array<Insertable<Database['delivery_attempts']>> = [];
    const j: Array<Insertable<Database['jobs']>> = [];
    for (let i = 0; i < n; i++) {
      const messageId = ids.nextNumber();
      const eventId = ids.nextNumber();
      const deliveryId = ids.nextNumber();
      m.push({
        id: messageId,
        account_id: account.id,
        channel_id: channelId,
        contact_id: contacts[(done + i) % contacts.length]!.id,
        direction: 'sent',
        content: '{"type":"text","payload":"An old message of the backlog."}',
        metadata: null,
        status: 'delivered',
        external_id: null,
        error: null,
        idempotency_key: null,
        request_hash: null,
        sent_at: at,
        delivered_at: at,
        read_at: null,
        created_at: at,
      });
      e.push({
        id: eventId,
        account_id: account.id,
        channel_id: channelId,
        contact_id: null,
        message_id: messageId,
        type: 'message_echo',
        body: '{}',
        created_at: at,
        inbound_key: null,
      });
      d.push({
        id: deliveryId,
        event_id: eventId,
        account_id: account.id,
        channel_id: channelId,
        webhook_id: 1,
        status: 'delivered',
        attempts: 1,
        next_attempt_at: at,
        locked_until: null,
        last_status_code: 200,
        last_error: null,
        created_at: at,
        updated_at: at,
        lease_id: null,
        locked_by: null,
      });
      a.push({
        id: ids.nextNumber(),
        delivery_id: deliveryId,
        attempted_at: at,
        url: 'https://example.com/hook',
        status_code: 200,
        duration_ms: 12,
        response_excerpt: 'ok',
        error: null,
      });
      j.push({
        id: ids.nextNumber(),
        account_id: account.id,
        channel_id: channelId,
        message_id: messageId,
        kind: 'send',
        payload: '{}',
        status: 'done',
        attempts: 1,
        run_at: at,
        last_error: null,
        created_at: at,
        updated_at: at,
      });
    }
    await runtime.store.transaction(async (tx) => {
      // Parameters per statement stay below both drivers' limits.
      for (let k = 0; k < n; k += 500) {
        await tx.db
          .insertInto('messages')
          .values(m.slice(k, k + 500))
          .execute();
        await tx.db
          .insertInto('events')
          .values(e.slice(k, k + 500))
          .execute();
        await tx.db
          .insertInto('deliveries')
          .values(d.slice(k, k + 500))
          .execute();
        await tx.db
          .insertInto('delivery_attempts')
          .values(a.slice(k, k + 500))
          .execute();
        await tx.db
          .insertInto('jobs')
          .values(j.slice(k, k + 500))
          .execute();
      }
    });
  }
  return messages * 5;
}

const seedStart = performance.now();
const seeded = await seed();
const seedSeconds = Math.round((performance.now() - seedStart) / 100) / 10;

await runtime.app.listen({ port: 0, host: '127.0.0.1' });
const address = runtime.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ port, token: accessToken, channelId: channel.id, seeded, seedSeconds })}\n`);

let purge: { startedAt: number; seconds: number | null; counts: RetentionCounts | null; error?: string } | null = null;
let purging: Promise<unknown> | null = null;
if (purgeAfterMs !== null) {
  setTimeout(() => {
    const started = performance.now();
    const current = { startedAt: Date.now(), seconds: null as number | null, counts: null as RetentionCounts | null };
    purge = current;
    purging = runtime.purgeRetention().then(
      (counts) => {
        current.counts = counts;
        current.seconds = Math.round(performance.now() - started) / 1000;
      },
      (error: unknown) => (purge = { ...current, error: String(error) }),
    );
  }, purgeAfterMs);
}

/** Rows of the backlog (60 days old) still stored, over the five tables it fills. */
async function backlogLeft(): Promise<number> {
  const db = runtime.store.db;
  const old = Date.now() - 30 * 86_400_000;
  const n = async (query: Promise<{ n: number | string | bigint }>) => Number((await query).n);
  const count = (table: 'messages' | 'events' | 'deliveries' | 'jobs') =>
    n(
      db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('created_at', '<', old)
        .executeTakeFirstOrThrow(),
    );
  const attempts = n(
    db
      .selectFrom('delivery_attempts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('attempted_at', '<', old)
      .executeTakeFirstOrThrow(),
  );
  return (await count('messages')) + (await count('events')) + (await count('deliveries')) + (await count('jobs')) + (await attempts);
}

/** After the load: how long the rest of the purge takes with no load, at most this long (ms). */
const IDLE_WAIT_MS = Number(process.env.BENCH_IDLE_WAIT_MS ?? '300000');

process.once('SIGTERM', () => {
  void (async () => {
    await runtime.app.close();
    const count = async (table: 'messages' | 'deliveries' | 'jobs', since = 0) =>
      Number(
        (
          await runtime.store.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('created_at', '>=', since)
            .executeTakeFirstOrThrow()
        ).n,
      );
    // The messages the load sent (the backlog is 60 days old).
    const stored = await count('messages', Date.now() - 86_400_000);
    const left = { messages: await count('messages'), deliveries: await count('deliveries'), jobs: await count('jobs') };
    let underLoad: { seconds: number; rowsPurged: number } | null = null;
    let idle: { seconds: number; rowsPurged: number; finished: boolean } | null = null;
    const current = purge as { startedAt: number; seconds: number | null } | null;
    if (current && purging) {
      // What the purge did while the load ran, then the rest of the backlog with no load.
      const loadEnded = Date.now();
      const leftAtLoadEnd = await backlogLeft();
      underLoad = { seconds: (loadEnded - current.startedAt) / 1000, rowsPurged: seeded - leftAtLoadEnd };
      const idleStart = performance.now();
      const finished = await Promise.race([purging.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), IDLE_WAIT_MS))]);
      idle = { seconds: Math.round(performance.now() - idleStart) / 1000, rowsPurged: leftAtLoadEnd - (await backlogLeft()), finished };
    }
    process.stdout.write(`${JSON.stringify({ stored, purge, left, underLoad, idle })}\n`);
    await runtime.close();
    process.exit(0);
  })();
});
