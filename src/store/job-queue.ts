/**
 * The job queue as the workers see it: rows of the `jobs` table (send jobs and other background
 * work), claimed under a lease by the workers of any process. What differs between the dialects
 * (row locks on PostgreSQL, one transaction on SQLite, how a process learns of new jobs) lives in
 * sqlite/job-queue.ts and postgres/job-queue.ts.
 *
 * A job is `pending` until claimed, `running` while leased, and ends `done`, `failed` (its
 * attempts used up, or a failure that will not pass) or `expired` (not run by `expires_at`). An
 * attempt is counted when it is claimed, so a job that brings its process down is not claimed
 * forever; a job given back unrun (release) gets its attempt back.
 */

export type JobStatus = 'pending' | 'running' | 'done' | 'failed' | 'expired';

export interface NewJob {
  id: number;
  accountId: number;
  channelId: number;
  /** The message the job is about: at most one job per message and kind. */
  messageId: number | null;
  kind: string;
  /** The handler's input (JSON). */
  payload: string;
  /** Due from then on (injected clock). */
  runAt: number;
  /** Not run by then, the job ends `expired` (injected clock); null: never. */
  expiresAt: number | null;
  maxAttempts: number;
  createdAt: number;
}

export interface JobClaimRequest {
  /** Only jobs of these kinds (the ones this worker has handlers for). */
  kinds: readonly string[];
  /** Injected clock: jobs with `run_at <= now` are due, those with `expires_at <= now` are not run. */
  now: number;
  /** Wall time: a lease that ran out before it belongs to nobody any more. */
  leaseNow: number;
  /** Wall time until which the claimed jobs are held. */
  leaseUntil: number;
  /** Token of this claim; only its holder may complete or release the jobs. */
  leaseId: number;
  /** Instance number of the claiming process. */
  instanceId: number;
  limit: number;
  /** Leaves out the jobs of these channels (the worker holds as many of theirs as their rate can use). */
  skipChannels?: readonly number[];
}

export interface ClaimedJob {
  id: number;
  kind: string;
  accountId: number;
  channelId: number;
  messageId: number | null;
  payload: string;
  /** Attempts started, this one included. */
  attempts: number;
  maxAttempts: number;
  expiresAt: number | null;
  leaseId: number;
}

/** What became of a claimed job: `pending` again (a retry at `runAt`), or ended. */
export interface JobOutcome {
  id: number;
  leaseId: number;
  status: 'pending' | 'done' | 'failed';
  /** When a retry is due (ignored unless `pending`). */
  runAt: number;
  lastError: string | null;
  updatedAt: number;
}

export interface JobQueue {
  /**
   * Adds jobs; a job about a message that has a job of the same kind already (or an id taken) is
   * left out. Returns how many were added.
   */
  enqueue(jobs: readonly NewJob[]): Promise<number>;
  /**
   * Leases up to `limit` due jobs of the given kinds that nobody holds (pending, or running under
   * a lease that ran out), counting an attempt for each; never one past its `expires_at` or with
   * its attempts used up. On PostgreSQL two workers claiming at once never take the same job.
   */
  claim(request: JobClaimRequest): Promise<ClaimedJob[]>;
  /** Writes the outcomes in one transaction; a job whose lease passed to another claim keeps its new state. */
  complete(outcomes: readonly JobOutcome[]): Promise<void>;
  /** Gives jobs back unrun: pending, due as they were, their attempt not counted. */
  release(ids: readonly number[], leaseId: number): Promise<void>;
  /**
   * Frees the jobs held by processes that ended (as `DeliveryQueue.releaseOrphans`): pending
   * again, or `failed` when that was their last attempt. Returns how many were freed.
   */
  releaseOrphans(ownInstance: number | null): Promise<number>;
  /**
   * Ends the jobs that can no longer run: past `expires_at` and not under a live lease become
   * `expired`; running under a lease that ran out with no attempt left become `failed`. `now` is
   * the injected clock, `leaseNow` wall time. Returns how many ended.
   */
  expire(now: number, leaseNow: number): Promise<number>;
  /** Tells the workers of other processes that jobs became due (PostgreSQL: NOTIFY; SQLite: nothing). */
  announce(): void;
  /** Calls `listener` when another process announced due jobs; returns how to stop. */
  subscribe(listener: () => void): () => Promise<void>;
}
