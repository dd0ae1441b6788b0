import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { ClaimedJob, EndableRequest, EndedJob, JobClaimRequest, JobOutcome, JobQueue, NewJob } from '../job-queue.js';
import { CLAIMED_JOB_COLUMNS, jobRow, toClaimedJobs, type ClaimedJobRow } from '../job-rows.js';
import { ENDED_LEASE, endJobs, findEndable } from '../job-sweep.js';

// Due pending jobs of one kind, and running ones whose lease ran out, in (run_at, id) order. Each
// branch is its own range of jobs_claim (status, kind, run_at, id) read in index order and cut at
// the limit: with the two states in one OR, or the kinds in one IN list, SQLite reads every due
// job and sorts them all for each claim (a backlog of 20,000 made each claim take about 10 ms).
function scanSql(perAccount: boolean): string {
  return `
  SELECT id FROM (
    SELECT id, run_at FROM (
      SELECT id, run_at FROM jobs
      WHERE status = 'pending' AND kind = @kind AND run_at <= @now
        AND attempts < max_attempts
        AND (expires_at IS NULL OR expires_at > @now)
        AND channel_id NOT IN (SELECT value FROM json_each(@skip))${perAccount ? PER_ACCOUNT : ''}
      ORDER BY run_at, id
      LIMIT @limit)
    UNION ALL
    SELECT id, run_at FROM (
      SELECT id, run_at FROM jobs
      WHERE status = 'running' AND kind = @kind AND leased_until < @leaseNow
        AND attempts < max_attempts
        AND (expires_at IS NULL OR expires_at > @now)
        AND channel_id NOT IN (SELECT value FROM json_each(@skip))${perAccount ? PER_ACCOUNT : ''}
      ORDER BY run_at, id
      LIMIT @limit))
  ORDER BY run_at, id
  LIMIT @limit`;
}

// The jobs a scan found, leased. Run in the same synchronous step as the scan, so they are still
// as it saw them. Scan and lease apart cost less than one UPDATE over the scan as its subquery:
// SQLite took about four times the scan's time for that UPDATE, even when it found no job, and
// most claims (a runner's polls, one per kind) find none.
const LEASE = `
  UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_id = @leaseId, leased_until = @leaseUntil,
    instance_id = @instanceId, updated_at = @now
  WHERE id IN (SELECT value FROM json_each(@ids))
  RETURNING ${CLAIMED_JOB_COLUMNS}`;

/**
 * One running job of the kind per account (JobClaimRequest.perAccount). The claiming process's own
 * jobs are in `skipAccounts`; a row of its own still marked running may be one whose outcome is
 * not committed yet, so only other processes' live leases count here.
 */
const PER_ACCOUNT = `
          AND account_id NOT IN (SELECT value FROM json_each(@skipAccounts))
          AND account_id NOT IN (SELECT account_id FROM jobs WHERE status = 'running' AND kind = @kind AND leased_until >= @leaseNow
            AND instance_id <> @instanceId)`;

const SCAN = scanSql(false);
const SCAN_PER_ACCOUNT = scanSql(true);

// A job pending again is due at its own time, or earlier when it was made due while it ran: a
// run_at later than the claim (updated_at) was set meanwhile (FailoversRepo.poke).
const COMPLETE = `
  UPDATE jobs SET status = @status,
    run_at = CASE WHEN @status <> 'pending' THEN run_at WHEN run_at > updated_at AND run_at < @runAt THEN run_at ELSE @runAt END,
    last_error = @lastError, updated_at = @updatedAt, lease_id = NULL, leased_until = NULL
  WHERE id = @id AND lease_id = @leaseId AND status = 'running'`;

const MARK_SENT = `
  UPDATE messages SET status = 'sent', external_id = @externalId
  WHERE id = @messageId AND account_id = @accountId AND status = 'queued'`;

const RELEASE = `
  UPDATE jobs SET status = 'pending', attempts = attempts - 1, lease_id = NULL, leased_until = NULL
  WHERE lease_id = ? AND status = 'running' AND id IN (SELECT value FROM json_each(?))`;

/**
 * The job queue on SQLite. One process owns the file, so a claim needs no row locks: a scan picks
 * the due jobs and an UPDATE leases them, run synchronously while holding Kysely's connection, so
 * no other transaction interleaves.
 */
export class SqliteJobQueue implements JobQueue {
  private prepared: {
    scan: BetterSqlite3.Statement;
    scanPerAccount: BetterSqlite3.Statement;
    lease: BetterSqlite3.Statement;
    complete: (outcomes: readonly JobOutcome[]) => void;
    release: BetterSqlite3.Statement;
  } | null = null;

  constructor(
    private readonly connection: BetterSqlite3.Database,
    private readonly db: Kysely<Database>,
  ) {}

  /** Prepared on first use: the table has its columns only after the migrations ran. */
  private get statements() {
    if (!this.prepared) {
      const complete = this.connection.prepare(COMPLETE);
      const markSent = this.connection.prepare(MARK_SENT);
      this.prepared = {
        scan: this.connection.prepare(SCAN).pluck(),
        scanPerAccount: this.connection.prepare(SCAN_PER_ACCOUNT).pluck(),
        lease: this.connection.prepare(LEASE),
        complete: this.connection.transaction((outcomes: readonly JobOutcome[]) => {
          for (const o of outcomes) {
            complete.run({ id: o.id, leaseId: o.leaseId, status: o.status, runAt: o.runAt, lastError: o.lastError, updatedAt: o.updatedAt });
            if (o.sent) markSent.run({ ...o.sent });
          }
        }),
        release: this.connection.prepare(RELEASE),
      };
    }
    return this.prepared;
  }

  private exclusive<T>(work: () => T): Promise<T> {
    return this.db.connection().execute(async () => work());
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

  claim(r: JobClaimRequest): Promise<ClaimedJob[]> {
    if (r.limit <= 0 || r.kinds.length === 0) return Promise.resolve([]);
    return this.exclusive(() => {
      const skip = JSON.stringify(r.skipChannels ?? []);
      const rows: ClaimedJobRow[] = [];
      // One kind at a time (see scanSql), until the limit is reached.
      for (const kind of r.kinds) {
        if (rows.length >= r.limit) break;
        const scan = r.perAccount ? this.statements.scanPerAccount : this.statements.scan;
        const ids = scan.all({
          ...(r.perAccount ? { skipAccounts: JSON.stringify(r.perAccount.skipAccounts) } : {}),
          kind,
          now: r.now,
          leaseNow: r.leaseNow,
          ...(r.perAccount ? { instanceId: r.instanceId } : {}),
          limit: r.limit - rows.length,
          skip,
        }) as number[];
        if (ids.length === 0) continue;
        const leased = this.statements.lease.all({
          ids: JSON.stringify(ids),
          now: r.now,
          leaseUntil: r.leaseUntil,
          leaseId: r.leaseId,
          instanceId: r.instanceId,
        }) as ClaimedJobRow[];
        rows.push(...leased);
      }
      return toClaimedJobs(rows, r.leaseId);
    });
  }

  complete(outcomes: readonly JobOutcome[]): Promise<void> {
    if (outcomes.length === 0) return Promise.resolve();
    return this.exclusive(() => this.statements.complete(outcomes));
  }

  release(ids: readonly number[], leaseId: number): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    return this.exclusive(() => {
      this.statements.release.run(leaseId, JSON.stringify(ids));
    });
  }

  /** Only this process uses the file, so every lease found at start belongs to a process that ended. */
  async releaseOrphans(ownInstance: number | null): Promise<number> {
    if (ownInstance === null) return 0;
    const result = await this.db
      .updateTable('jobs')
      .set((eb) => ({
        status: eb.case().when('attempts', '<', eb.ref('max_attempts')).then('pending').else('running').end(),
        lease_id: null,
        // The last attempt's lease ends with its process: the end sweep fails the job (and its kind is told).
        leased_until: eb.case().when('attempts', '<', eb.ref('max_attempts')).then(null).else(ENDED_LEASE).end(),
      }))
      .where('status', '=', 'running')
      .where('leased_until', '<>', ENDED_LEASE)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  endable(request: EndableRequest): Promise<EndedJob[]> {
    return findEndable(this.db, request);
  }

  end(jobs: readonly EndedJob[], times: { now: number; leaseNow: number }): Promise<number> {
    return endJobs(this.db, jobs, times);
  }

  /** One process serves a SQLite file: its worker is woken in process. */
  announce(): void {}

  subscribe(): () => Promise<void> {
    return () => Promise.resolve();
  }
}
