import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { MIGRATIONS } from './migrations/index.js';

/** The most due items a depth read counts per queue: a scrape stays cheap however long a backlog grows. */
export const QUEUE_DEPTH_BOUND = 10_000;

/** Items due in one queue (`webhooks`, or `jobs:<kind>`) and when the oldest of them came due. */
export interface QueueDepth {
  queue: string;
  /** Counted up to QUEUE_DEPTH_BOUND. */
  due: number;
  oldestDueAt: number | null;
}

/**
 * Due items per queue, over the claim indexes (status, due time) and bounded by
 * QUEUE_DEPTH_BOUND rows each: the same queries on both dialects.
 */
export async function queueDepths(db: Kysely<Database>, now: number): Promise<QueueDepth[]> {
  const deliveries = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('deliveries')
        .select('next_attempt_at as due_at')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .limit(QUEUE_DEPTH_BOUND)
        .as('d'),
    )
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min<number | string | null>('d.due_at').as('oldest')])
    .executeTakeFirst();
  const jobs = await db
    .selectFrom((eb) =>
      eb.selectFrom('jobs').select(['kind', 'run_at as due_at']).where('status', '=', 'pending').where('run_at', '<=', now).limit(QUEUE_DEPTH_BOUND).as('j'),
    )
    .select((eb) => ['j.kind', eb.fn.countAll<number | string>().as('n'), eb.fn.min<number | string | null>('j.due_at').as('oldest')])
    .groupBy('j.kind')
    .execute();
  const depth = (queue: string, n: number | string | undefined, oldest: number | string | null | undefined): QueueDepth => ({
    queue,
    due: Number(n ?? 0),
    oldestDueAt: oldest === null || oldest === undefined ? null : Number(oldest),
  });
  return [depth('webhooks', deliveries?.n, deliveries?.oldest), ...jobs.map((j) => depth(`jobs:${j.kind}`, j.n, j.oldest))];
}

/** The migrations of this build the database has not run (empty when the schema is current). */
export async function pendingMigrations(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from schema_migrations`.execute(db);
  const done = new Set(rows.map((r) => r.name));
  return MIGRATIONS.map((m) => m.name).filter((name) => !done.has(name));
}
