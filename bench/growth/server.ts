/**
 * The service side of the cost-growth benchmark: the whole service on BENCH_DATABASE_URL, as in
 * the Send Message benchmark (an enterprise account, a mobile channel in test mode), after writing
 * BENCH_MESSAGES stored messages into that channel with SQL set statements (no per-row round
 * trip): min(100,000, messages / 10) contacts, the first `deep` messages (50,000, or a twentieth of
 * a smaller store) to one contact so that List Messages can be read at offset 10,000, the rest
 * spread over the contacts. Prints one JSON line {port, token, channelId, deepContactId, seeded,
 * seedSeconds} when ready; on SIGTERM closes and prints {stored}.
 */
import { sql } from 'kysely';
import { IdGenerator } from '../../src/lib/ids.js';
import { startSendTarget } from '../shared/send-target.js';

const messages = Number(process.env.BENCH_MESSAGES ?? '0');
const { runtime, account, accessToken, channel } = await startSendTarget();
const db = runtime.store.db;
const postgres = runtime.store.dialect === 'postgres';

/** Rows of one statement (and transaction): large enough to be quick, small enough for the WAL. */
const CHUNK = 250_000;

/** `select i from <0..count-1 from start>` in the store's dialect, as a FROM source named s(i). */
function series(start: number, count: number) {
  return postgres
    ? sql`generate_series(${sql.lit(start)}::bigint, ${sql.lit(start + count - 1)}::bigint) as s(i)`
    : sql`(with recursive r(i) as (select ${sql.lit(start)} union all select i + 1 from r where i < ${sql.lit(start + count - 1)}) select i from r) as s`;
}

async function seed(): Promise<{ contacts: number; deepContactId: number | null }> {
  if (messages === 0) return { contacts: 0, deepContactId: null };
  const at = Date.now() - 30 * 86_400_000;
  // Ids of that time from an instance number no process of the benchmark holds: base + i stays
  // unique and far below the ids the service makes now.
  const contactBase = new IdGenerator(14, () => at).nextNumber();
  const messageBase = new IdGenerator(15, () => at).nextNumber();
  const contacts = Math.max(1, Math.min(100_000, Math.floor(messages / 10)));
  const deep = Math.min(50_000, Math.max(1, Math.floor(messages / 20)));
  const phone = postgres ? sql`'+4208' || lpad(cast(i as text), 8, '0')` : sql`'+4208' || printf('%08d', i)`;
  const acc = sql.lit(account.id);
  const ch = sql.lit(Number(channel.id));
  for (let start = 0; start < contacts; start += CHUNK) {
    const n = Math.min(CHUNK, contacts - start);
    await sql`insert into contacts (id, account_id, channel_id, external_id, phone_number, email, user_ref, name, profile, created_at, updated_at)
      select ${sql.lit(contactBase)} + i, ${acc}, ${ch}, null, ${phone}, null, null, 'Contact ' || cast(i as text), '{}', ${sql.lit(at)} + i, ${sql.lit(at)} + i
      from ${series(start, n)}`.execute(db);
  }
  for (let start = 0; start < messages; start += CHUNK) {
    const n = Math.min(CHUNK, messages - start);
    await sql`insert into messages (id, account_id, channel_id, contact_id, direction, content, metadata, status, external_id, error, idempotency_key, request_hash, sent_at, delivered_at, read_at, created_at)
      select ${sql.lit(messageBase)} + i, ${acc}, ${ch},
        case when i < ${sql.lit(deep)} then ${sql.lit(contactBase)} else ${sql.lit(contactBase)} + (i % ${sql.lit(contacts)}) end,
        'sent', '{"type":"text","payload":"A stored message of the benchmark."}', null, 'delivered', null, null, null, null,
        ${sql.lit(at)} + i, ${sql.lit(at)} + i, null, ${sql.lit(at)} + i
      from ${series(start, n)}`.execute(db);
  }
  // Fresh statistics, and on PostgreSQL the visibility map, as a store that grew over time would
  // have them (autovacuum sees to both there; index-only scans need the map).
  await sql.raw(postgres ? 'vacuum analyze' : 'analyze').execute(db);
  // The bulk write's dirty pages and log flushed now, not by a checkpoint during the measurement
  // (a store that grew over time has no such burst behind it).
  await sql.raw(postgres ? 'checkpoint' : 'pragma wal_checkpoint(truncate)').execute(db);
  return { contacts, deepContactId: contactBase };
}

const seedStart = performance.now();
const seeded = await seed();
const seedSeconds = Math.round((performance.now() - seedStart) / 100) / 10;

await runtime.app.listen({ port: 0, host: '127.0.0.1' });
const address = runtime.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(
  `${JSON.stringify({ port, token: accessToken, channelId: channel.id, deepContactId: seeded.deepContactId === null ? null : String(seeded.deepContactId), contacts: seeded.contacts, seedSeconds })}\n`,
);

process.once('SIGTERM', () => {
  void (async () => {
    await runtime.app.close();
    const row = await db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    process.stdout.write(`${JSON.stringify({ stored: Number(row.n) })}\n`);
    await runtime.close();
    process.exit(0);
  })();
});
