import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { ClaimedJob, EndedJob, JobClaimRequest, JobEndReason, JobOutcome, JobQueue, NewJob, SentMark } from '../store/job-queue.js';
import { RateAdmission } from './rate-admission.js';
import type { Lease, TaskContext, TaskKind, TaskSource } from './task.js';

/** What a job's handler made of one attempt. */
export type JobResult =
  /** `sent`: the job's message was taken by its platform; marked with the job's outcome, in its transaction. */
  /** `waitMs`: the job did its part for now and is due again after this long (a timer that watches something; not with `sent`). */
  | { ok: true; sent?: SentMark; waitMs?: number }
  /** `retryable`: another attempt may succeed (at `retryAfterMs`, or on the kind's schedule). */
  | {
      ok: false;
      retryable: boolean;
      error: string;
      retryAfterMs?: number;
      /** The platform asked the job's whole channel to wait (a 429): no job of the channel starts for this long (ms). */
      pauseChannelMs?: number;
    };

/** One kind of job: how its input is written into the row and read back, and what running it does. */
export interface JobKind<Input> {
  /** The `kind` column; at most one job per message and kind. */
  readonly kind: string;
  encode(input: Input): string;
  /** Reads a row's payload; throws when it cannot (the job then fails without an attempt at the work). */
  decode(payload: string): Input;
  /** `signal` is aborted when the worker stops and its grace period is over. */
  handle(input: Input, job: ClaimedJob, signal: AbortSignal): Promise<JobResult>;
  /** Wait before the attempt after `attempts` failed ones (default: 30 s, doubling, at most an hour). */
  retryDelayMs?(attempts: number): number;
  /**
   * Jobs of one channel start at most this many per second (null or absent: as soon as there is
   * room). `job` names the channel, for a rate the kind knows fresher than the payload's.
   */
  rateOf?(input: Input, job: ClaimedJob): number | null;
  /**
   * Called with the jobs of this kind a claim brought, before any of them runs: a kind may start
   * reading what its handlers need for all of them at once (one query per claim, not one per
   * job). Not waited for: the runner claims on meanwhile, and the handlers wait for what they
   * need. A failure here is not the jobs' failure: their handlers read for themselves.
   */
  prefetch?(jobs: readonly ClaimedJob[]): Promise<void>;
  /**
   * The job ends without its work done (`job.reason`): past its expiry, or its last attempt lost
   * (its process died, its lease ran out) or failed retryably. Called before the job's end is
   * written, and again if that write is lost, so it must be idempotent; when it throws, the job is
   * left as it is and told again at the next sweep. Not called for a job whose handler said it
   * failed for good (`retryable: false`): the handler settled it.
   */
  onEnded?(input: Input, job: EndedJob): Promise<void>;
}

/** Where a job belongs and how it may run; the rest of a NewJob comes from the kind and the input. */
export interface JobPlacement {
  id: number;
  accountId: number;
  channelId: number;
  messageId?: number | null;
  runAt: number;
  expiresAt?: number | null;
  maxAttempts?: number;
}

/** Jobs the end sweep looks at and tells their kinds of at once. */
const END_BATCH = 100;

export function defaultRetryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/** The job kinds a worker runs (its handlers), by their `kind`. */
export class JobKinds {
  private readonly kinds = new Map<string, JobKind<unknown>>();

  register<Input>(kind: JobKind<Input>): this {
    if (this.kinds.has(kind.kind)) throw new Error(`job kind ${kind.kind} is registered twice`);
    this.kinds.set(kind.kind, kind as JobKind<unknown>);
    return this;
  }

  get(kind: string): JobKind<unknown> | undefined {
    return this.kinds.get(kind);
  }

  names(): string[] {
    return [...this.kinds.keys()];
  }

  get size(): number {
    return this.kinds.size;
  }
}

/** A job row for `kind` with `input`, ready for JobQueue.enqueue. */
export function newJob<Input>(kind: JobKind<Input>, input: Input, placement: JobPlacement, createdAt: number): NewJob {
  return {
    id: placement.id,
    accountId: placement.accountId,
    channelId: placement.channelId,
    messageId: placement.messageId ?? null,
    kind: kind.kind,
    payload: kind.encode(input),
    runAt: placement.runAt,
    expiresAt: placement.expiresAt ?? null,
    maxAttempts: placement.maxAttempts ?? 1,
    createdAt,
  };
}

export interface JobsTaskOptions {
  queue: JobQueue;
  kinds: JobKinds;
  /** Due-ness, expiry and retry times (injected clock). */
  clock: Clock;
  /** Wall time, for the lease checks of the expiry sweep. */
  wallClock: Clock;
  /** Jobs running at once. */
  concurrency: number;
  /** Jobs held at once, running and waiting for their channel's rate (default: four times `concurrency`). */
  capacity?: number;
  /** How long a claim holds a job: longer than any attempt may take. */
  leaseMs: number;
  logger: Logger;
  /**
   * One running job per account (across processes), the accounts taking turns: a claim leaves
   * out the accounts this task holds a job of and those already served this round, and starts a
   * new round when only they have jobs left. For long, heavy jobs (trainings), not for sends.
   */
  perAccount?: boolean;
  /**
   * Whether this task frees its own process's leases at start (default true). A second task on
   * the same queue leaves that to the first: freeing them would take back the first's jobs.
   */
  freesOwnLeases?: boolean;
}

/**
 * The jobs table as a task kind of the queue runner: claims due jobs of the registered kinds,
 * runs each with its kind's handler, and writes back `done`, a retry (pending again, while
 * attempts are left and before it expires) or `failed`. Its periodic sweep also ends the jobs
 * that expired or lost their last attempt, each after telling its kind (`onEnded`), so that what
 * a job stood for (a queued message) never waits for a job that will not run. A job cut off by
 * stop is given back with its attempt.
 *
 * Its admission starts each channel's jobs at the rate their kind gives (`rateOf`), the channels
 * taking turns; a channel holding as many jobs as its rate can use soon is left out of the next
 * claims, so a burst to one channel waits in the store and other channels keep going. A failure
 * that asks its channel to wait (`pauseChannelMs`) pauses that channel only.
 */
export class JobsTask implements TaskKind<ClaimedJob, ClaimedJob, JobOutcome>, TaskSource<ClaimedJob, JobOutcome> {
  readonly name = 'jobs';
  readonly source = this;
  readonly admission: RateAdmission<ClaimedJob>;
  readonly leaseMs: number;
  /** perAccount: jobs held by this task, by account. */
  private readonly heldByAccount = new Map<number, number>();
  /** perAccount: accounts that had their turn in this round. */
  private readonly served = new Set<number>();

  constructor(private readonly o: JobsTaskOptions) {
    this.admission = new RateAdmission<ClaimedJob>({
      concurrency: o.concurrency,
      capacity: o.capacity ?? o.concurrency * 4,
      clock: o.clock,
      rateOf: (job) => {
        const perSecond = this.rateOf(job);
        return perSecond === null ? null : { key: job.channelId, perSecond };
      },
    });
    this.leaseMs = o.leaseMs;
  }

  /** A claim of up to `limit` due jobs of this task's kinds under `lease`. */
  private claimRequest(lease: Lease, limit: number): JobClaimRequest {
    return {
      kinds: this.o.kinds.names(),
      now: this.o.clock.now(),
      leaseNow: lease.now,
      leaseUntil: lease.until,
      leaseId: lease.id,
      instanceId: lease.instanceId,
      limit,
    };
  }

  async claim(lease: Lease, limit: number): Promise<ClaimedJob[]> {
    if (this.o.perAccount) return this.claimByAccount(lease, limit);
    const jobs = await this.o.queue.claim({ ...this.claimRequest(lease, limit), skipChannels: this.admission.saturated() });
    this.admission.more = jobs.length >= limit;
    this.prefetch(jobs);
    return jobs;
  }

  /**
   * One job at a time, each of an account with none held here nor running elsewhere, the accounts
   * not served this round first: one account's queue of jobs waits behind every other account's
   * next one, never the other way round.
   */
  private async claimByAccount(lease: Lease, limit: number): Promise<ClaimedJob[]> {
    const jobs: ClaimedJob[] = [];
    const one = (skipAccounts: number[]) => this.o.queue.claim({ ...this.claimRequest(lease, 1), perAccount: { skipAccounts } });
    while (jobs.length < limit) {
      const busy = [...this.heldByAccount.keys(), ...jobs.map((job) => job.accountId)];
      let got = await one([...busy, ...this.served]);
      if (got.length === 0 && this.served.size > 0) {
        // Every account with work left had its turn: a new round.
        this.served.clear();
        got = await one(busy);
      }
      const job = got[0];
      if (!job) break;
      jobs.push(job);
      this.served.add(job.accountId);
    }
    for (const job of jobs) this.heldByAccount.set(job.accountId, (this.heldByAccount.get(job.accountId) ?? 0) + 1);
    this.admission.more = jobs.length >= limit;
    this.prefetch(jobs);
    return jobs;
  }

  /** perAccount: a job this task held is done with (run, or given back). */
  private letGo(job: ClaimedJob): void {
    if (!this.o.perAccount) return;
    const held = (this.heldByAccount.get(job.accountId) ?? 0) - 1;
    if (held > 0) this.heldByAccount.set(job.accountId, held);
    else this.heldByAccount.delete(job.accountId);
  }

  /** Lets each kind start reading ahead for the jobs of it a claim brought. */
  private prefetch(jobs: readonly ClaimedJob[]): void {
    if (jobs.length === 0) return;
    const byKind = new Map<string, ClaimedJob[]>();
    for (const job of jobs) {
      if (!this.o.kinds.get(job.kind)?.prefetch) continue;
      const list = byKind.get(job.kind);
      if (list) list.push(job);
      else byKind.set(job.kind, [job]);
    }
    for (const [name, list] of byKind) {
      this.o.kinds.get(name)!.prefetch!(list).catch((error: unknown) =>
        this.o.logger.warn({ err: error, kind: name }, 'reading ahead for claimed jobs failed; each job reads for itself'),
      );
    }
  }

  complete(outcomes: readonly JobOutcome[]): Promise<void> {
    return this.o.queue.complete(outcomes);
  }

  async release(jobs: readonly ClaimedJob[]): Promise<void> {
    for (const job of jobs) this.letGo(job);
    const byLease = new Map<number, number[]>();
    for (const job of jobs) byLease.set(job.leaseId, [...(byLease.get(job.leaseId) ?? []), job.id]);
    for (const [leaseId, ids] of byLease) await this.o.queue.release(ids, leaseId);
  }

  /** Frees the jobs of processes that ended, then ends those that can no longer run. */
  async releaseOrphans(ownInstance: number | null): Promise<number> {
    const freed = await this.o.queue.releaseOrphans(this.o.freesOwnLeases === false ? null : ownInstance);
    await this.endSweep();
    return freed;
  }

  /**
   * Ends the jobs that expired or lost their last attempt, each after its kind was told
   * (`onEnded`): a batch at a time, until a batch comes back short or none of it could be told.
   */
  private async endSweep(): Promise<void> {
    const kinds = this.o.kinds.names();
    let ended = 0;
    for (;;) {
      const times = { now: this.o.clock.now(), leaseNow: this.o.wallClock.now() };
      const found = await this.o.queue.endable({ kinds, ...times, limit: END_BATCH });
      if (found.length === 0) break;
      const told = await Promise.all(found.map((job) => this.tellEnded(job)));
      const settled = found.filter((_, i) => told[i]);
      if (settled.length > 0) ended += await this.o.queue.end(settled, times);
      if (found.length < END_BATCH || settled.length === 0) break;
    }
    if (ended > 0) this.o.logger.info({ ended }, 'jobs expired or lost their last attempt');
  }

  /** Tells the job's kind that it ended; false when the kind could not record it (told again later). */
  private async tellEnded(job: EndedJob): Promise<boolean> {
    const kind = this.o.kinds.get(job.kind);
    if (!kind?.onEnded) return true;
    let input: unknown;
    try {
      input = kind.decode(job.payload);
    } catch {
      // Nothing the kind could act on: the job just ends.
      return true;
    }
    try {
      await kind.onEnded(input, job);
      return true;
    } catch (error) {
      this.o.logger.warn({ err: error, job: String(job.id), kind: job.kind }, 'recording the end of a job failed; told again at the next sweep');
      return false;
    }
  }

  subscribe(listener: () => void): () => Promise<void> {
    return this.o.queue.subscribe(listener);
  }

  /** The job's rate per second from its kind, or null (a payload that cannot be read has none: it fails at once). */
  private rateOf(job: ClaimedJob): number | null {
    const kind = this.o.kinds.get(job.kind);
    if (!kind?.rateOf) return null;
    try {
      const perSecond = kind.rateOf(kind.decode(job.payload), job);
      return perSecond !== null && perSecond > 0 && Number.isFinite(perSecond) ? perSecond : null;
    } catch {
      return null;
    }
  }

  async run(job: ClaimedJob, context: TaskContext<JobOutcome>): Promise<void> {
    try {
      await this.runOne(job, context);
    } finally {
      this.letGo(job);
    }
  }

  private async runOne(job: ClaimedJob, context: TaskContext<JobOutcome>): Promise<void> {
    const kind = this.o.kinds.get(job.kind);
    const result = kind
      ? await this.attempt(kind, job, context.signal)
      : { ok: false as const, retryable: false, error: `No handler for jobs of kind ${job.kind}.` };
    if (!result.ok && context.signal.aborted) {
      // Cut off by stop: not the job's failure, so not an attempt. Another run takes it.
      await this.o.queue.release([job.id], job.leaseId).catch(() => undefined);
      return;
    }
    const now = this.o.clock.now();
    if (!result.ok && result.pauseChannelMs !== undefined && result.pauseChannelMs > 0) this.admission.pause(job.channelId, result.pauseChannelMs);
    if (result.ok && result.waitMs !== undefined) {
      context.record({ id: job.id, leaseId: job.leaseId, status: 'pending', runAt: now + result.waitMs, lastError: null, updatedAt: now });
      return;
    }
    if (result.ok) {
      context.record({
        id: job.id,
        leaseId: job.leaseId,
        status: 'done',
        runAt: now,
        lastError: null,
        updatedAt: now,
        ...(result.sent ? { sent: result.sent } : {}),
      });
      return;
    }
    const runAt = now + (result.retryAfterMs ?? kind?.retryDelayMs?.(job.attempts) ?? defaultRetryDelayMs(job.attempts));
    const again = result.retryable && job.attempts < job.maxAttempts && (job.expiresAt === null || runAt < job.expiresAt);
    if (result.retryable && !again) {
      // Out of attempts or time with a failure that might have passed: the kind is told. If it
      // cannot record that, the job stays leased; once the lease runs out the end sweep tells it again.
      const reason: JobEndReason = job.attempts < job.maxAttempts ? 'expired' : 'attempts_exhausted';
      if (!(await this.tellEnded({ ...job, reason, lastError: result.error }))) return;
    }
    context.record({ id: job.id, leaseId: job.leaseId, status: again ? 'pending' : 'failed', runAt, lastError: result.error, updatedAt: now });
  }

  /** One attempt: a payload that cannot be read fails for good, a handler that throws may be tried again. */
  private async attempt(kind: JobKind<unknown>, job: ClaimedJob, signal: AbortSignal): Promise<JobResult> {
    let input: unknown;
    try {
      input = kind.decode(job.payload);
    } catch (error) {
      return { ok: false, retryable: false, error: `The job's payload cannot be read: ${messageOf(error)}` };
    }
    try {
      return await kind.handle(input, job, signal);
    } catch (error) {
      return { ok: false, retryable: true, error: messageOf(error) };
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
