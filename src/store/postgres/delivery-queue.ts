import type pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from '../schema.js';
import type { ClaimedDelivery, ClaimRequest, DeliveryOutcome, DeliveryQueue } from '../delivery-queue.js';
import { attemptTuples, outcomeTuples, type ClaimedRow, toClaimed } from '../delivery-rows.js';
import { announcer } from './listen.js';
import { leasedInstanceNumbers } from './instance-lease.js';

const CHANNEL = 'parley_deliveries_due';

export interface QueueConnections {
  /** LISTEN on `channel` on a connection of its own until the returned function stops it. */
  listen(channel: string, listener: () => void): () => Promise<void>;
  /** The worker's own small pool, whose sessions commit without waiting for the disk (below). */
  pool(): pg.Pool;
}

/**
 * The claim and the write-back run as named prepared statements on the worker's connections:
 * parsed and planned once per connection instead of on every call (planning was about a third of
 * a claim's time in the database). One text each, so the excluded channels and accounts are arrays.
 */
const CLAIM = `
  WITH scan AS MATERIALIZED (
    SELECT id, channel_id, account_id, next_attempt_at FROM deliveries
    WHERE status = 'pending' AND next_attempt_at <= $1
      AND (locked_until IS NULL OR locked_until < $2)
      AND channel_id <> ALL ($10::bigint[]) AND account_id <> ALL ($11::bigint[])
    ORDER BY next_attempt_at, id
    LIMIT $3
    FOR UPDATE SKIP LOCKED),
  picked AS (
    SELECT id FROM (
      SELECT id, next_attempt_at,
        row_number() OVER (PARTITION BY channel_id ORDER BY next_attempt_at, id) AS rn,
        row_number() OVER (PARTITION BY account_id ORDER BY next_attempt_at, id) AS an,
        min(account_id) OVER () = max(account_id) OVER () AS alone
      FROM scan) ranked
    WHERE rn <= $4 AND (an <= $5 OR alone)
    ORDER BY next_attempt_at, id
    LIMIT $6)
  UPDATE deliveries d SET locked_until = $7, lease_id = $8, locked_by = $9
  FROM picked p, events e
  WHERE d.id = p.id AND e.id = d.event_id
  RETURNING d.id, d.event_id, d.account_id, d.channel_id, d.webhook_id, d.attempts, e.type AS event_type, e.body, e.correlation_id`;

const COMPLETE = `
  WITH tried AS (
    INSERT INTO delivery_attempts (id, delivery_id, attempted_at, url, status_code, duration_ms, response_excerpt, error)
    SELECT (j->>0)::bigint, (j->>1)::bigint, (j->>2)::bigint, j->>3, (j->>4)::int, (j->>5)::int, j->>6, j->>7
    FROM json_array_elements($1::json) AS a(j)
    WHERE EXISTS (SELECT 1 FROM deliveries x WHERE x.id = (j->>1)::bigint)
    RETURNING 1)
  UPDATE deliveries d SET status = v.status, attempts = v.attempts, next_attempt_at = v.next_at, locked_until = NULL,
    last_status_code = v.code, last_error = v.error, updated_at = v.updated_at
  FROM (SELECT (j->>0)::bigint AS id, (j->>1)::bigint AS lease_id, j->>2 AS status, (j->>3)::int AS attempts,
               (j->>4)::bigint AS next_at, (j->>5)::int AS code, j->>6 AS error, (j->>7)::bigint AS updated_at
        FROM json_array_elements($2::json) AS r(j)) AS v
  WHERE d.id = v.id AND d.lease_id = v.lease_id`;

/**
 * The queue on PostgreSQL, shared by any number of worker processes. A claim locks the earliest
 * due rows with FOR UPDATE SKIP LOCKED, so two workers claiming at once look at disjoint rows
 * without waiting for each other, picks at most `perChannel` of each channel among them (and
 * `perAccount` of each account when several share them), and leases those in the same
 * statement; the lease keeps other workers off them afterwards (the locks end with the
 * statement). The CTE is MATERIALIZED so the locking scan runs exactly once.
 *
 * The worker's writes (leases, results, the attempt log) go through a pool of its own with
 * `synchronous_commit = off`: they do not wait for the WAL to reach the disk. A database crash
 * may forget the last moments of them, which only means a delivery is sent again; the events and
 * their pending deliveries are written by the API with full durability, so none is ever lost.
 */
export class PostgresDeliveryQueue implements DeliveryQueue {
  /** NOTIFY, at most once per event-loop turn. */
  readonly announce: () => void;
  private workerDb: Kysely<Database> | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    /** Advisory-lock namespace of the instance leases (see PostgresStore). */
    private readonly lockNamespace: number,
    private readonly connections: QueueConnections,
  ) {
    this.announce = announcer((channel) => sql`SELECT pg_notify(${channel}, '')`.execute(this.db), CHANNEL);
  }

  /** Made on first use: only processes that run a worker need it. */
  private get wdb(): Kysely<Database> {
    this.workerDb ??= new Kysely<Database>({ dialect: new PostgresDialect({ pool: this.connections.pool() }) });
    return this.workerDb;
  }

  async claim(r: ClaimRequest): Promise<ClaimedDelivery[]> {
    if (r.limit <= 0) return [];
    const { rows } = await this.connections.pool().query<ClaimedRow>({
      name: 'parley_delivery_claim',
      text: CLAIM,
      values: [
        r.now,
        r.leaseNow,
        r.scanLimit,
        r.perChannel,
        r.perAccount,
        r.limit,
        r.leaseUntil,
        r.leaseId,
        r.instanceId,
        r.excludeChannels,
        r.excludeAccounts,
      ],
    });
    return toClaimed(rows);
  }

  /**
   * One statement: the INSERT in the CTE runs to completion whether or not the UPDATE reads it.
   * A try is logged even when the lease moved on; not when the delivery itself is gone.
   */
  async complete(outcomes: readonly DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await this.connections.pool().query({
      name: 'parley_delivery_complete',
      text: COMPLETE,
      values: [JSON.stringify(attemptTuples(outcomes)), JSON.stringify(outcomeTuples(outcomes))],
    });
  }

  async release(ids: readonly number[], leaseId: number): Promise<void> {
    if (ids.length === 0) return;
    await this.wdb
      .updateTable('deliveries')
      .set({ locked_until: null })
      .where('id', 'in', [...ids])
      .where('lease_id', '=', leaseId)
      .execute();
  }

  /**
   * A process holds its instance number with a session advisory lock for as long as it lives, so
   * a lease whose instance number nobody holds belongs to a process that ended.
   */
  async releaseOrphans(ownInstance: number | null): Promise<number> {
    const own = ownInstance === null ? sql`FALSE` : sql`locked_by = ${ownInstance}`;
    const result = await sql`
      UPDATE deliveries SET locked_until = NULL, lease_id = NULL
      WHERE status = 'pending' AND locked_until IS NOT NULL
        AND (${own} OR locked_by IS NULL OR locked_by NOT IN (${leasedInstanceNumbers(this.lockNamespace)}))`.execute(this.wdb);
    return Number(result.numAffectedRows ?? 0);
  }

  /** Listens on its own connection, and connects again (telling the listener) if it drops. */
  subscribe(listener: () => void): () => Promise<void> {
    return this.connections.listen(CHANNEL, listener);
  }

  /** Ends the worker's pool (the store closes it with itself). */
  async close(): Promise<void> {
    const db = this.workerDb;
    this.workerDb = null;
    await db?.destroy();
  }
}
