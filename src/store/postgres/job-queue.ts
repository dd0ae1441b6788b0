import type pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { ClaimedJob, EndableRequest, EndedJob, JobClaimRequest, JobOutcome, JobQueue, NewJob } from '../job-queue.js';
import { jobRow, toClaimedJobs, type ClaimedJobRow } from '../job-rows.js';
import { ENDED_LEASE, endJobs, findEndable } from '../job-sweep.js';
import { announcer, listen } from './listen.js';
import { leasedInstanceNumbers } from './instance-lease.js';

const CHANNEL = 'parley_jobs_due';

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
    /** A client outside every pool, for LISTEN. */
    private readonly listenClient: () => pg.Client,
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
   * One kind at a time, each state its own range of jobs_claim (status, kind, run_at, id) read in
   * index order and cut at the limit, as on SQLite: with the two states in one OR and the kinds in
   * an array, every due job is read and sorted for each claim, which a backlog makes slow.
   */
  async claim(r: JobClaimRequest): Promise<ClaimedJob[]> {
    if (r.limit <= 0 || r.kinds.length === 0) return [];
    const claimed: ClaimedJobRow[] = [];
    const skip = [...(r.skipChannels ?? [])];
    const skipAccounts = [...(r.perAccount?.skipAccounts ?? [])];
    for (const kind of r.kinds) {
      const limit = r.limit - claimed.length;
      if (limit <= 0) break;
      // One running job of the kind per account (JobClaimRequest.perAccount): this process's own
      // are in skipAccounts (a row of its own still marked running may await its outcome's
      // commit), other processes' by their live leases.
      const perAccount = r.perAccount
        ? sql`AND NOT (account_id = ANY(${skipAccounts}::bigint[]))
            AND account_id NOT IN (SELECT account_id FROM jobs WHERE status = 'running' AND kind = ${kind} AND leased_until >= ${r.leaseNow}
              AND instance_id <> ${r.instanceId})`
        : sql``;
      const { rows } = await sql<ClaimedJobRow>`
        WITH due AS MATERIALIZED (
          SELECT id, run_at FROM jobs
          WHERE status = 'pending' AND kind = ${kind} AND run_at <= ${r.now}
            AND attempts < max_attempts
            AND (expires_at IS NULL OR expires_at > ${r.now})
            AND NOT (channel_id = ANY(${skip}::bigint[]))
            ${perAccount}
          ORDER BY run_at, id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED),
        lapsed AS MATERIALIZED (
          SELECT id, run_at FROM jobs
          WHERE status = 'running' AND kind = ${kind} AND leased_until < ${r.leaseNow}
            AND attempts < max_attempts
            AND (expires_at IS NULL OR expires_at > ${r.now})
            AND NOT (channel_id = ANY(${skip}::bigint[]))
            ${perAccount}
          ORDER BY run_at, id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED),
        picked AS (
          SELECT id FROM (SELECT id, run_at FROM due UNION ALL SELECT id, run_at FROM lapsed) AS both_states
          ORDER BY run_at, id
          LIMIT ${limit})
        UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, lease_id = ${r.leaseId}, leased_until = ${r.leaseUntil},
          instance_id = ${r.instanceId}, updated_at = ${r.now}
        FROM picked p
        WHERE j.id = p.id
        RETURNING j.id, j.kind, j.account_id, j.channel_id, j.message_id, j.payload, j.attempts, j.max_attempts, j.expires_at`.execute(this.db);
      claimed.push(...rows);
    }
    return toClaimedJobs(claimed, r.leaseId);
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
    return listen(this.listenClient, CHANNEL, listener);
  }
}
