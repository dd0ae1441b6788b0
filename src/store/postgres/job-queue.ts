import type pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { ClaimedJob, EndableRequest, EndedJob, JobClaimRequest, JobOutcome, JobQueue, NewJob } from '../job-queue.js';
import { jobRow, toClaimedJobs, type ClaimedJobRow } from '../job-rows.js';
import { ENDED_LEASE, endJobs, findEndable } from '../job-sweep.js';
import { announcer } from './listen.js';
import { leasedInstanceNumbers } from './instance-lease.js';

const CHANNEL = 'parley_jobs_due';

/**
 * One running job of the kind per account (JobClaimRequest.perAccount): this process's own are in
 * $9 (a row of its own still marked running may await its outcome's commit), other processes' by
 * their live leases.
 */
const PER_ACCOUNT = `
        AND NOT (account_id = ANY($9::bigint[]))
        AND account_id NOT IN (SELECT account_id FROM jobs WHERE status = 'running' AND kind = k.kind AND leased_until >= $3
          AND instance_id <> $8)`;

/** Due pending jobs and lapsed leases of one kind (`k.kind`, of the kinds in $1), at most $5 of each. */
const inState = (state: 'pending' | 'running', perAccount: boolean) => `
    SELECT j.id, j.run_at, k.ord FROM kinds k CROSS JOIN LATERAL (
      SELECT id, run_at FROM jobs
      WHERE status = '${state}' AND kind = k.kind AND ${state === 'pending' ? 'run_at <= $2' : 'leased_until < $3'}
        AND attempts < max_attempts
        AND (expires_at IS NULL OR expires_at > $2)
        AND NOT (channel_id = ANY($4::bigint[]))${perAccount ? PER_ACCOUNT : ''}
      ORDER BY run_at, id
      LIMIT $5
      FOR UPDATE SKIP LOCKED) j`;

/**
 * $1 kinds (text[], in the order they fill the limit), $2 now, $3 lease clock now, $4 channels to
 * skip, $5 limit, $6 lease id, $7 lease end, $8 instance, $9 (per account) accounts to skip.
 */
const claimSql = (perAccount: boolean) => `
  WITH kinds AS (SELECT kind, ord FROM unnest($1::text[]) WITH ORDINALITY AS k(kind, ord)),
  due AS MATERIALIZED (${inState('pending', perAccount)}),
  lapsed AS MATERIALIZED (${inState('running', perAccount)}),
  picked AS (
    SELECT id FROM (SELECT id, run_at, ord FROM due UNION ALL SELECT id, run_at, ord FROM lapsed) AS both_states
    ORDER BY ord, run_at, id
    LIMIT $5)
  UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, lease_id = $6, leased_until = $7,
    instance_id = $8, updated_at = $2
  FROM picked p
  WHERE j.id = p.id
  RETURNING j.id, j.kind, j.account_id, j.channel_id, j.message_id, j.payload, j.attempts, j.max_attempts, j.expires_at`;

const CLAIM = claimSql(false);
const CLAIM_PER_ACCOUNT = claimSql(true);

/**
 * The job queue on PostgreSQL, shared by any number of worker processes. A claim locks the due
 * jobs it picks with FOR UPDATE SKIP LOCKED and leases them in the same statement, so two workers
 * claiming at once take disjoint jobs without waiting for each other; the lease keeps the others
 * off afterwards. Unlike the webhook worker's writes, a job's outcome commits durably: a send job
 * forgotten by a database crash would be sent twice.
 */
export class PostgresJobQueue implements JobQueue {
  readonly announce: () => void;

  constructor(
    private readonly db: Kysely<Database>,
    /** Advisory-lock namespace of the instance leases (see PostgresStore). */
    private readonly lockNamespace: number,
    /** LISTEN on a connection of its own until the returned function stops it (connections.ts). */
    private readonly listen: (channel: string, listener: () => void) => () => Promise<void>,
    /** The query pool, for the claim's named prepared statement. */
    private readonly pool: pg.Pool,
  ) {
    this.announce = announcer((channel) => sql`SELECT pg_notify(${channel}, '')`.execute(this.db), CHANNEL);
  }

  async enqueue(jobs: readonly NewJob[]): Promise<number> {
    if (jobs.length === 0) return 0;
    const result = await this.db
      .insertInto('jobs')
      .values(jobs.map(jobRow))
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0);
  }

  /**
   * Every kind in one statement, and so one round trip: a claim asked each kind in turn, and with
   * one kind due and three not, the claim of a send worker at 500 sends/s waited for four round
   * trips (28 ms on average on a loaded 2-core machine). Each kind and state is still its own range
   * of jobs_claim (status, kind, run_at, id), read in index order and cut at the limit (a lateral
   * subquery per kind): with the two states in one OR or the kinds in one array condition, every
   * due job is read and sorted for each claim, which a backlog makes slow. The kinds fill the limit
   * in the order given, as before. A named prepared statement: parsed and planned once per
   * connection.
   */
  async claim(r: JobClaimRequest): Promise<ClaimedJob[]> {
    if (r.limit <= 0 || r.kinds.length === 0) return [];
    const values: unknown[] = [[...r.kinds], r.now, r.leaseNow, [...(r.skipChannels ?? [])], r.limit, r.leaseId, r.leaseUntil, r.instanceId];
    if (r.perAccount) values.push([...r.perAccount.skipAccounts]);
    const { rows } = await this.pool.query<ClaimedJobRow>({
      name: r.perAccount ? 'parley_job_claim_per_account' : 'parley_job_claim',
      text: r.perAccount ? CLAIM_PER_ACCOUNT : CLAIM,
      values,
    });
    return toClaimedJobs(rows, r.leaseId);
  }

  async complete(outcomes: readonly JobOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const values = JSON.stringify(
      outcomes.map((o) => [
        o.id,
        o.leaseId,
        o.status,
        o.runAt,
        o.lastError,
        o.updatedAt,
        o.sent?.accountId ?? null,
        o.sent?.messageId ?? null,
        o.sent?.externalId ?? null,
      ]),
    );
    // A job pending again is due at its own time, or earlier when it was made due while it ran: a
    // run_at later than the claim (updated_at) was set meanwhile (FailoversRepo.poke).
    // One statement: the `sent` marks of the messages (a data-modifying CTE runs whether or not it
    // is read) and the jobs' outcomes commit together.
    await sql`
      WITH v AS MATERIALIZED (
        SELECT (x->>0)::bigint AS id, (x->>1)::bigint AS lease_id, x->>2 AS status, (x->>3)::bigint AS run_at,
               x->>4 AS error, (x->>5)::bigint AS updated_at, (x->>6)::bigint AS account_id, (x->>7)::bigint AS message_id,
               x->>8 AS external_id
        FROM json_array_elements(${values}::json) AS o(x)),
      sent AS (
        UPDATE messages m SET status = 'sent', external_id = v.external_id
        FROM v
        WHERE v.message_id IS NOT NULL AND m.id = v.message_id AND m.account_id = v.account_id AND m.status = 'queued')
      UPDATE jobs j SET status = v.status,
        run_at = CASE WHEN v.status <> 'pending' THEN j.run_at WHEN j.run_at > j.updated_at AND j.run_at < v.run_at THEN j.run_at ELSE v.run_at END,
        last_error = v.error, updated_at = v.updated_at, lease_id = NULL, leased_until = NULL
      FROM v
      WHERE j.id = v.id AND j.lease_id = v.lease_id AND j.status = 'running'`.execute(this.db);
  }

  async release(ids: readonly number[], leaseId: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('jobs')
      .set((eb) => ({ status: 'pending', attempts: eb('attempts', '-', 1), lease_id: null, leased_until: null }))
      .where('id', 'in', [...ids])
      .where('lease_id', '=', leaseId)
      .where('status', '=', 'running')
      .execute();
  }

  /** A lease whose instance number nobody holds (an advisory lock of PostgresStore) belongs to a process that ended. */
  async releaseOrphans(ownInstance: number | null): Promise<number> {
    const own = ownInstance === null ? sql`FALSE` : sql`instance_id = ${ownInstance}`;
    const result = await sql`
      UPDATE jobs SET status = CASE WHEN attempts < max_attempts THEN 'pending' ELSE 'running' END,
        lease_id = NULL,
        -- The last attempt's lease ends with its process: the end sweep fails the job (and its kind is told).
        leased_until = CASE WHEN attempts < max_attempts THEN NULL ELSE ${ENDED_LEASE}::bigint END
      WHERE status = 'running' AND leased_until <> ${ENDED_LEASE}
        AND (${own} OR instance_id IS NULL OR instance_id NOT IN (${leasedInstanceNumbers(this.lockNamespace)}))`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }

  endable(request: EndableRequest): Promise<EndedJob[]> {
    return findEndable(this.db, request);
  }

  end(jobs: readonly EndedJob[], times: { now: number; leaseNow: number }): Promise<number> {
    return endJobs(this.db, jobs, times);
  }

  subscribe(listener: () => void): () => Promise<void> {
    return this.listen(CHANNEL, listener);
  }
}
