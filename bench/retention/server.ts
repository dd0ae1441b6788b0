/**
 * The service side of the retention benchmark: the whole service on BENCH_DATABASE_URL, as in
 * the Send Message benchmark (an enterprise account, a mobile channel in test mode), after
 * writing a backlog of BENCH_ROWS finished rows 60 days old (messages of up to 1,000 contacts, each
 * with its `message_echo` event, a delivered webhook delivery with one attempt, and a done job:
 * five rows a message), every one past the ages the benchmark sets. Prints one JSON line
 * {port, token, channelId, seeded, seedSeconds} when ready. Then starts and stops retention
 * passes as told on stdin (the commands below), so the load can run with and without one on the
 * same process and database. On SIGTERM aborts any pass, closes and prints {stored (messages the
 * load sent), left (backlog rows still stored)}.
 */
import { createInterface } from 'node:readline';
import type { Insertable } from 'kysely';
import { startSendTarget } from '../shared/send-target.js';
import { IdGenerator } from '../../src/lib/ids.js';
import type { Database } from '../../src/store/schema.js';
import type { RetentionCounts } from '../../src/domain/retention/purge.js';

const rows = Number(process.env.BENCH_ROWS ?? '200000');

const { runtime, account, accessToken, channel } = await startSendTarget({
  // Every kind of the backlog is past its age; the pacing is the service's default unless given.
  RETENTION_MESSAGES_DAYS: '30',
  RETENTION_EVENTS_DAYS: '30',
  ...(process.env.RETENTION_BATCH_SIZE ? { RETENTION_BATCH_SIZE: process.env.RETENTION_BATCH_SIZE } : {}),
  ...(process.env.RETENTION_BATCH_PAUSE_MS ? { RETENTION_BATCH_PAUSE_MS: process.env.RETENTION_BATCH_PAUSE_MS } : {}),
  ...(process.env.RETENTION_LOAD_SHARE_PERCENT ? { RETENTION_LOAD_SHARE_PERCENT: process.env.RETENTION_LOAD_SHARE_PERCENT } : {}),
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

interface Pass {
  abort: AbortController;
  /** Backlog rows stored when the pass was asked for. */
  leftBefore: number;
  /** Starts the pass (once). */
  begin: () => void;
  /** When the pass started (performance.now()); null while it waits for the load's first connection. */
  startedAt: number | null;
  /** Settles when the pass has ended (on its own or aborted), never rejects. */
  ended: Promise<void> | null;
  endedAt: number | null;
  /** The pass ended on its own (nothing more due), not by the abort. */
  finished: boolean;
  counts: RetentionCounts | null;
  error?: string;
}

let pass: Pass | null = null;

/** Starts a pass now, or (armed) when the next connection arrives: the load's first, so the purge runs exactly alongside it. */
async function startPass(armed: boolean): Promise<Record<string, unknown>> {
  if (pass) throw new Error('a pass is already running');
  const current: Pass = {
    abort: new AbortController(),
    leftBefore: await backlogLeft(),
    begin: () => {
      if (current.ended) return;
      current.startedAt = performance.now();
      current.ended = runtime
        .purgeRetention(current.abort.signal)
        .then(
          (counts) => {
            current.counts = counts;
            current.finished = !current.abort.signal.aborted;
            if (counts === null) current.error = 'another pass held the purge';
          },
          (error: unknown) => {
            current.error = String(error);
          },
        )
        .then(() => {
          current.endedAt = performance.now();
        });
    },
    startedAt: null,
    ended: null,
    endedAt: null,
    finished: false,
    counts: null,
  };
  pass = current;
  if (armed) runtime.app.server.once('connection', current.begin);
  else current.begin();
  return { leftBefore: current.leftBefore };
}

/** Aborts the pass and waits for the batch under way; a pass still waiting for its connection is called off. */
async function endPass(current: Pass): Promise<void> {
  runtime.app.server.off('connection', current.begin);
  current.abort.abort();
  await current.ended;
  pass = null;
}

/**
 * Lets the pass end on its own for at most `waitMs`, then aborts it (the batch under way
 * completes) and answers what it did: rows of the backlog deleted, how long it ran, whether it
 * ended on its own.
 */
async function stopPass(waitMs: number): Promise<Record<string, unknown>> {
  const current = pass;
  if (!current) throw new Error('no pass is running');
  if (current.ended) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([current.ended, new Promise<void>((r) => (timer = setTimeout(r, waitMs)))]);
    clearTimeout(timer);
  }
  await endPass(current);
  if (current.startedAt === null) throw new Error('the pass never started: no connection arrived');
  const endedAt = current.endedAt ?? performance.now();
  const left = await backlogLeft();
  return {
    seconds: Math.round(endedAt - current.startedAt) / 1000,
    rowsPurged: current.leftBefore - left,
    left,
    finished: current.finished,
    counts: current.counts,
    ...(current.error === undefined ? {} : { error: current.error }),
  };
}

// Commands, one a line on stdin, each answered by one JSON line on stdout ({failed} when refused):
//   start [armed]   a retention pass, now or at the next connection (answers {leftBefore})
//   stop WAIT_MS    see stopPass
const commands = createInterface({ input: process.stdin });
commands.on('line', (line) => {
  const [command, arg] = line.trim().split(/\s+/);
  const answer =
    command === 'start' ? startPass(arg === 'armed') : command === 'stop' ? stopPass(Number(arg ?? '0')) : Promise.reject(new Error(`unknown command ${line}`));
  answer.then(
    (value) => process.stdout.write(`${JSON.stringify(value)}\n`),
    (error: unknown) => process.stdout.write(`${JSON.stringify({ failed: String(error) })}\n`),
  );
});

process.once('SIGTERM', () => {
  void (async () => {
    commands.close();
    if (pass) await endPass(pass);
    await runtime.app.close();
    // The messages the load sent (the backlog is 60 days old).
    const stored = Number(
      (
        await runtime.store.db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('created_at', '>=', Date.now() - 86_400_000)
          .executeTakeFirstOrThrow()
      ).n,
    );
    process.stdout.write(`${JSON.stringify({ stored, left: await backlogLeft() })}\n`);
    await runtime.close();
    process.exit(0);
  })();
});
