/**
 * The job queue as the workers see it: rows of the `jobs` table (send jobs and other background
 * work), claimed under a lease by the workers of any process. What differs between the dialects
 * (row locks on PostgreSQL, one transaction on SQLite, how a process learns of new jobs) lives in
 * sqlite/job-queue.ts and postgres/job-queue.ts.
 *
 * A job is `pending` until claimed, `running` while leased, and ends `done`, `failed` (its
 * attempts used up, or a failure that will not pass) or `expired` (not run by `expires_at`). An
 * attempt is counted when it is claimed, so a job that brings its process down is not claimed
 * forever; a job given back unrun (release) gets its attempt back. A job that ends without its
 * work done is found by `endable` and told to its kind before `end` ends it (job-sweep.ts).
 */

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
  /**
   * One running job of the kind per account: leaves out the accounts that have one running under
   * a live lease in another process, and `skipAccounts` (the claiming process's own, and those whose
   * turn was taken).
   */
  perAccount?: { skipAccounts: readonly number[] };
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

/** Why a job ends without its work done: not run by `expires_at`, or its last attempt lost or failed. */
export type JobEndReason = 'expired' | 'attempts_exhausted';

export interface EndableRequest {
  kinds: readonly string[];
  /** Injected clock (expiry). */
  now: number;
  /** Wall time (leases). */
  leaseNow: number;
  limit: number;
}

/** A job that ends without its work done, as its kind is told of it (JobKind.onEnded). */
export interface EndedJob {
  id: number;
  kind: string;
  accountId: number;
  channelId: number;
  messageId: number | null;
  payload: string;
  /** Attempts started (0: never run). */
  attempts: number;
  reason: JobEndReason;
  /** The last attempt's failure, or why the attempt was lost. */
  lastError: string | null;
}

/**
 * A queued message its job got the platform to take: `sent` with the platform's id, written in
 * the transaction of the job's outcome (a group commit for many jobs, not a commit per message).
 * Written even when the job's lease passed to another claim: the platform has the message either way.
 */
export interface SentMark {
  accountId: number;
  messageId: number;
  externalId: string | null;
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
  /** The job's message was taken by its platform (only with `done`). */
  sent?: SentMark;
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
  /**
   * Writes the outcomes in one transaction, with the `sent` marks of their messages (each only
   * while its message is `queued`); a job whose lease passed to another claim keeps its new state.
   */
  complete(outcomes: readonly JobOutcome[]): Promise<void>;
  /** Gives jobs back unrun: pending, due as they were, their attempt not counted. */
  release(ids: readonly number[], leaseId: number): Promise<void>;
  /**
   * Frees the jobs held by processes that ended (as `DeliveryQueue.releaseOrphans`): pending
   * again, or, when that was their last attempt, left to the end sweep (their lease lapsed at
   * once: `endable` finds them). Returns how many were freed.
   */
  releaseOrphans(ownInstance: number | null): Promise<number>;
  /**
   * The jobs of `kinds` that can no longer run, at most `limit` in id order: past `expires_at`
   * and not under a live lease (`expired`), or running under a lease that ran out with no attempt
   * left (`attempts_exhausted`). Changes nothing: `end` ends them once their kind has recorded
   * what that means, so a process that dies in between leaves them to be found again.
   */
  endable(request: EndableRequest): Promise<EndedJob[]>;
  /**
   * Ends jobs `endable` found, with the same times: `expired`, or `failed`; each only while it is
   * still as found. Returns how many ended.
   */
  end(jobs: readonly EndedJob[], times: { now: number; leaseNow: number }): Promise<number>;
  /** Tells the workers of other processes that jobs became due (PostgreSQL: NOTIFY; SQLite: nothing). */
  announce(): void;
  /** Calls `listener` when another process announced due jobs; returns how to stop. */
  subscribe(listener: () => void): () => Promise<void>;
}
