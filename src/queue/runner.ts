import type { Clock } from '../lib/clock.js';
import { systemClock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { TaskContext, TaskKind } from './task.js';
import { isStoreUnavailable } from '../store/errors.js';

export interface RunnerOptions {
  /**
   * Instance number of this process: its leases carry it, and its start frees those left by the
   * process before. A function is asked at each claim: the number may change when the store's
   * lease is taken back.
   */
  instanceId: number | (() => number);
  /** Lease ids (the process's id generator). */
  nextId: () => number;
  /** Claims at least this often without a wake-up (retries coming due). */
  pollMs: number;
  logger: Logger;
  /** Leases and sweeps run on wall time: they are about processes that die (tests inject a clock). */
  wallClock?: Clock;
  /** How often leases of processes that ended are looked for. */
  sweepMs?: number;
  /** How long stop() lets running items finish before aborting them. */
  shutdownGraceMs?: number;
  /** Outcomes written back per transaction at most. */
  flushBatch?: number;
  /**
   * A claim made because new work committed waits until this long after the claim before it
   * (claims for free room go at once). Under a steady stream of small commits this makes fewer,
   * larger claims; a wake-up after a quiet spell claims at once.
   */
  wakeClaimGapMs?: number;
  /**
   * With this set, the gap is the last claim's own time times this factor, `wakeClaimGapMs` at
   * most: claims that cost little (a fast or idle store) add little lag, while claims that cost
   * more are made fewer and larger, so they take at most about 1/(1 + factor) of the time.
   */
  wakeClaimGapFactor?: number;
  /**
   * After a claim that found nothing to take while it left out items held back by limits
   * (TaskSource.leftOutLimited), the next claim made because new work committed waits the empty
   * claim's own time times this factor, `emptyClaimGapMs` at most (claims for free room still go
   * at once). Such a claim reads through the backlog of the receivers at their limit to find
   * nothing: unbounded, one on every commit would take the time the calls need, and the backlog
   * would grow. A claim that found nothing because nothing was due changes no wait.
   */
  emptyClaimGapFactor?: number;
  emptyClaimGapMs?: number;
  /**
   * Outcomes wait this long to be written back with those that end meanwhile (one commit for
   * many). Their items keep their lease until then, so a crash in between only runs them again.
   */
  flushDelayMs?: number;
}

export interface RunnerStats {
  /** Claims made, and items they brought. */
  claims: number;
  claimed: number;
  /** Outcome batches written back. */
  flushes: number;
  /** Time spent waiting for claims, in all and at most (ms). */
  claimMs: number;
  claimMsMax: number;
}

const SWEEP_MS = 30_000;
const FLUSH_BATCH = 500;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs one task kind: claims due items while its admission has room (at once when woken, at least
 * every `pollMs` for retries coming due, backing off while claims fail), starts them as the
 * admission allows, writes their outcomes back in batches (group commit), frees the leases of
 * processes that ended (this instance's at start, then every `sweepMs`), listens for other
 * processes' announcements, and on stop lets running items finish for a grace period, then aborts
 * them and writes back what ended.
 */
export class QueueRunner<Held, Running, Outcome> {
  readonly stats: RunnerStats = { claims: 0, claimed: 0, flushes: 0, claimMs: 0, claimMsMax: 0 };
  private readonly wall: Clock;
  private readonly inflight = new Set<Promise<void>>();
  private readonly results: Outcome[] = [];
  private readonly abort = new AbortController();
  private readonly context: TaskContext<Outcome>;
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private woken = true;
  private signal: (() => void) | null = null;
  private flushing: Promise<void> | null = null;
  private lastSweep = 0;
  /** When the last claim started (performance.now()), and how long it took. */
  private lastClaimAt = -Infinity;
  private lastClaimMs = 0;
  /** The last claim took nothing while it left out items held back by limits (the empty-claim wait applies). */
  private lastClaimEmpty = false;
  private unsubscribe: () => Promise<void> = () => Promise.resolve();

  constructor(
    private readonly kind: TaskKind<Held, Running, Outcome>,
    private readonly o: RunnerOptions,
  ) {
    this.wall = o.wallClock ?? systemClock;
    this.context = {
      record: (outcome) => {
        this.results.push(outcome);
        this.flushing ??= this.flush();
      },
      signal: this.abort.signal,
    };
    kind.admission.onReady?.(() => {
      if (!this.running) return;
      this.pump();
      if (kind.admission.wantsClaim()) this.signal?.();
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // Work committed by other processes is announced through the store (PostgreSQL).
    this.unsubscribe = this.kind.source.subscribe(() => this.wake());
    this.loopDone = this.loop();
  }

  /** Started and not stopped (readiness: this queue is being worked). */
  get active(): boolean {
    return this.running;
  }

  /** New work may be due (committed here, or announced by another process). */
  wake(): void {
    this.woken = true;
    this.signal?.();
  }

  private async loop(): Promise<void> {
    await this.sweep(this.instance());
    let failures = 0;
    const admission = this.kind.admission;
    while (this.running) {
      // Checked on every turn, claiming or not: a runner that keeps claiming (its rows held back by
      // a job of a process that ended, say) must still free what that process held.
      if (this.wall.now() - this.lastSweep > (this.o.sweepMs ?? SWEEP_MS)) await this.sweep(null);
      if (admission.room() > 0 && (this.woken || admission.wantsClaim())) {
        const empty = this.lastClaimEmpty && this.o.emptyClaimGapFactor !== undefined;
        const factor = empty ? this.o.emptyClaimGapFactor : this.o.wakeClaimGapFactor;
        const cap = (empty ? this.o.emptyClaimGapMs : this.o.wakeClaimGapMs) ?? 0;
        const gap = Math.min(cap, factor === undefined ? Infinity : this.lastClaimMs * factor);
        const wait = this.lastClaimAt + gap - performance.now();
        if (wait > 0 && !admission.wantsClaim()) {
          await this.waitForSignal(wait, false);
          if (!this.running) break;
          continue;
        }
        this.woken = false;
        try {
          await this.claim();
          failures = 0;
        } catch (error) {
          failures += 1;
          // The database away is said in a line (the store logs why); anything else with its stack.
          this.o.logger.warn(isStoreUnavailable(error) ? { reason: String((error as Error).message) } : { err: error }, `claiming ${this.kind.name} failed`);
          await sleep(Math.min(this.o.pollMs * 2 ** failures, 5000));
        }
        continue;
      }
      await this.waitForSignal(this.o.pollMs, true);
    }
  }

  private instance(): number {
    const { instanceId } = this.o;
    return typeof instanceId === 'number' ? instanceId : instanceId();
  }

  /** Until signalled or `ms` passed (then woken, when `poll`: a poll claims for retries come due). */
  private waitForSignal(ms: number, poll: boolean): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (poll) this.woken = true;
        done();
      }, ms);
      const done = () => {
        clearTimeout(timer);
        this.signal = null;
        resolve();
      };
      this.signal = done;
    });
  }

  private async claim(): Promise<void> {
    const { admission, source } = this.kind;
    const now = this.wall.now();
    const lease = { id: this.o.nextId(), instanceId: this.instance(), now, until: now + this.kind.leaseMs };
    this.stats.claims += 1;
    const started = performance.now();
    this.lastClaimAt = started;
    const items = await source.claim(lease, admission.room(), this.context);
    const ms = performance.now() - started;
    this.lastClaimMs = ms;
    this.stats.claimMs += ms;
    this.stats.claimMsMax = Math.max(this.stats.claimMsMax, ms);
    // Empty because everything due waits for receivers at their limit: not because nothing is due.
    this.lastClaimEmpty = items.length === 0 && (source.leftOutLimited?.() ?? false);
    if (items.length === 0) return;
    this.stats.claimed += items.length;
    let overflow: Held[] | null = null;
    for (const item of items) if (!admission.hold(item)) (overflow ??= []).push(item);
    if (overflow) await source.release(overflow);
    this.pump();
  }

  /** Starts every held item the admission lets start now. */
  private pump(): void {
    const admission = this.kind.admission;
    for (let next = admission.next(); next !== null; next = admission.next()) {
      const item = next;
      const task = this.kind
        .run(item, this.context)
        .catch((error: unknown) => this.o.logger.error({ err: error, task: this.kind.name }, 'a queued task crashed'))
        .finally(() => {
          this.inflight.delete(task);
          admission.finish(item);
          this.pump();
          if (this.running && admission.wantsClaim(item)) this.signal?.();
        });
      this.inflight.add(task);
    }
  }

  private async flush(): Promise<void> {
    const delay = this.running ? (this.o.flushDelayMs ?? 0) : 0;
    await new Promise((resolve) => (delay > 0 ? setTimeout(resolve, delay) : setImmediate(resolve)));
    let failures = 0;
    while (this.results.length > 0) {
      const batch = this.results.splice(0, this.o.flushBatch ?? FLUSH_BATCH);
      try {
        this.stats.flushes += 1;
        await this.kind.source.complete(batch);
        failures = 0;
      } catch (error) {
        this.results.unshift(...batch);
        failures += 1;
        this.o.logger.warn({ err: error, pending: this.results.length }, `recording ${this.kind.name} outcomes failed; retrying`);
        // Unrecorded items keep their lease; if this never succeeds they run again later.
        if (!this.running && failures >= 3) break;
        await sleep(Math.min(200 * 2 ** failures, 5000));
      }
    }
    this.flushing = null;
  }

  /** Frees the leases of processes that ended; `ownInstance` once at start (see TaskSource). */
  async sweep(ownInstance: number | null = null): Promise<void> {
    this.lastSweep = this.wall.now();
    try {
      const freed = await this.kind.source.releaseOrphans(ownInstance);
      if (freed > 0) this.o.logger.info({ freed }, `freed ${this.kind.name} held by a process that ended`);
    } catch (error) {
      this.o.logger.warn({ err: error }, `freeing orphaned ${this.kind.name} failed`);
    }
  }

  /** Stops claiming, gives back what did not start, lets running items end (up to the grace time), and records everything. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.signal?.();
    await this.unsubscribe();
    await this.loopDone;
    const waiting = this.kind.admission.drainWaiting();
    if (waiting.length > 0) await this.kind.source.release(waiting).catch(() => undefined);
    if (this.inflight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.inflight]), new Promise((resolve) => (timer = setTimeout(resolve, this.o.shutdownGraceMs ?? 3000)))]);
      clearTimeout(timer);
      if (this.inflight.size > 0) {
        this.abort.abort();
        this.kind.abort?.();
        await Promise.allSettled([...this.inflight]);
      }
    }
    while (this.flushing) await this.flushing;
    if (this.results.length > 0) this.flushing = this.flush();
    while (this.flushing) await this.flushing;
  }

  /** Items running, and held (running and waiting). */
  get load(): { active: number; held: number } {
    return { active: this.kind.admission.active, held: this.kind.admission.held };
  }
}
