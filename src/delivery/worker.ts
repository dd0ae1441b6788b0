import type { Clock } from '../lib/clock.js';
import { systemClock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { ClaimedDelivery, DeliveryOutcome, DeliveryQueue } from '../store/delivery-queue.js';
import { EndpointSlots, type Ticket } from './endpoint-slots.js';
import type { SendInput, SendResult } from './http-sender.js';
import { isSuccess, nextStep } from './retry-schedule.js';
import { webhookHeaders } from './signing.js';

/** A channel's webhook as it is at send time (a changed URL applies to pending deliveries). */
export interface WebhookTarget {
  webhookId: number;
  url: string;
  secret: string;
  sslVerification: boolean;
}

/** Gives the current webhook of each channel that still has one. */
export type TargetLoader = (channelIds: readonly number[]) => Promise<Map<number, WebhookTarget>>;

export interface Sender {
  readonly userAgent: string;
  send(input: SendInput): Promise<SendResult>;
  /** Cuts off the calls in flight; they come back with `aborted` set. */
  abortAll(): void;
  close(): Promise<void>;
}

export interface DeliveryWorkerOptions {
  queue: DeliveryQueue;
  loadTargets: TargetLoader;
  /** Owned by the worker from now on: closed when it stops. */
  sender: Sender;
  /** Due-ness, attempt times and the retry schedule run on this clock (tests inject one). */
  clock: Clock;
  /** Leases are about processes that die, so they run on wall time. */
  wallClock?: Clock;
  instanceId: number;
  nextId: () => number;
  retryScheduleSeconds: readonly number[];
  timeoutMs: number;
  concurrency: number;
  endpointConcurrency: number;
  /** Calls in flight for one account (default: `concurrency`, no account cap). */
  accountConcurrency?: number;
  pollMs: number;
  logger: Logger;
  /** How long stop() lets calls in flight finish before cutting them off. */
  shutdownGraceMs?: number;
}

interface Job {
  row: ClaimedDelivery;
  target: WebhookTarget;
  leaseId: number;
  /** Wall time of the claim: a job that waited for a slot reads its webhook again. */
  claimedAt: number;
}

/** A job held longer than this before its call re-reads the webhook (it may have changed). */
const STALE_TARGET_MS = 1000;

export interface WorkerStats {
  /** Claim statements run, and rows they returned. */
  claims: number;
  claimed: number;
  delivered: number;
  failedTries: number;
  gaveUp: number;
  dropped: number;
  /** Result batches written back. */
  flushes: number;
  /** Time spent waiting for claim statements, in all and at most (ms). */
  claimMs: number;
  claimMsMax: number;
}

const ORPHAN_SWEEP_MS = 30_000;
/** A claim brings at least this many rows of a busy channel: fewer claims and commits per row. */
const MIN_BATCH = 32;
const FLUSH_BATCH = 500;

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The webhook delivery worker: claims due deliveries, sends them with per-endpoint concurrency
 * caps, and writes each try and the row's next state back in batches (group commit). Wakes at
 * once when told that new events committed, and polls every `pollMs` for retries coming due.
 */
export class DeliveryWorker {
  readonly stats: WorkerStats = { claims: 0, claimed: 0, delivered: 0, failedTries: 0, gaveUp: 0, dropped: 0, flushes: 0, claimMs: 0, claimMsMax: 0 };
  private readonly slots: EndpointSlots<Job>;
  private readonly wall: Clock;
  private readonly leaseMs: number;
  /** Rows of one channel per claim. */
  private readonly batch: number;
  private readonly inflight = new Set<Promise<void>>();
  private readonly results: DeliveryOutcome[] = [];
  /** Origin of each channel's webhook, as last seen, and the reverse: lets a claim skip channels of busy endpoints. */
  private readonly channelOrigin = new Map<number, string>();
  private readonly originChannels = new Map<string, Set<number>>();
  /** Origins the last claim left rows of (busy, capped at `perChannel` rows, or over their hold). */
  private readonly hungry = new Set<string>();
  /** The same for accounts (over their share, or capped at `perAccount` rows in a shared claim). */
  private readonly hungryAccounts = new Set<number>();
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private woken = true;
  private more = false;
  private signal: (() => void) | null = null;
  private flushing: Promise<void> | null = null;
  private lastSweep = 0;
  private unsubscribe: () => Promise<void> = () => Promise.resolve();

  constructor(private readonly o: DeliveryWorkerOptions) {
    this.batch = Math.max(o.endpointConcurrency, MIN_BATCH);
    this.slots = new EndpointSlots<Job>(o.concurrency, o.endpointConcurrency, this.batch, o.accountConcurrency ?? o.concurrency);
    this.wall = o.wallClock ?? systemClock;
    // A held row may wait for the calls ahead of it at its endpoint or in its account (each up to
    // the timeout), then make its own call; the lease outlasts that.
    const rounds = Math.max(Math.ceil(this.slots.holdPerEndpoint / o.endpointConcurrency), Math.ceil(this.slots.holdPerAccount / this.slots.perAccount));
    this.leaseMs = (rounds + 1) * o.timeoutMs + 30_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // Events committed by API-only processes are announced through the store (PostgreSQL).
    this.unsubscribe = this.o.queue.subscribe(() => this.wake());
    this.loopDone = this.loop();
  }

  /** New work may be due (events committed, a redelivery asked for). */
  wake(): void {
    this.woken = true;
    this.signal?.();
  }

  private async loop(): Promise<void> {
    await this.sweepOrphans(this.o.instanceId);
    let failures = 0;
    while (this.running) {
      if (this.slots.room() > 0 && this.wantsClaim()) {
        this.woken = false;
        try {
          await this.claim();
          failures = 0;
        } catch (error) {
          failures += 1;
          this.o.logger.warn({ err: error }, 'claiming webhook deliveries failed');
          await sleep(Math.min(this.o.pollMs * 2 ** failures, 5000));
        }
        continue;
      }
      if (this.wall.now() - this.lastSweep > ORPHAN_SWEEP_MS) await this.sweepOrphans(null);
      await this.waitForSignal();
    }
  }

  private wantsClaim(): boolean {
    if (this.woken || this.refillDue()) return true;
    for (const origin of this.hungry) if (this.slots.canTakeBatch(origin)) return true;
    for (const account of this.hungryAccounts) if (this.slots.accountCanTakeBatch(account)) return true;
    return false;
  }

  /** The last claim found work, and enough room has come free for another worthwhile batch. */
  private refillDue(): boolean {
    return this.more && this.slots.room() >= Math.max(1, Math.min(this.batch, Math.floor(this.o.concurrency / 2)));
  }

  private waitForSignal(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.woken = true;
        done();
      }, this.o.pollMs);
      const done = () => {
        clearTimeout(timer);
        this.signal = null;
        resolve();
      };
      this.signal = done;
    });
  }

  private async claim(): Promise<void> {
    const perChannel = this.batch;
    const limit = this.slots.room();
    // Reading the earliest due rows only: a claim's cost grows with the rows it looks at.
    const scanLimit = Math.min(limit, perChannel * 2);
    const busy = new Set<string>();
    for (const origin of this.slots.endpoints()) if (!this.slots.canTakeBatch(origin)) busy.add(origin);
    const excludeChannels: number[] = [];
    for (const origin of busy) for (const channel of this.originChannels.get(origin) ?? []) excludeChannels.push(channel);
    // Accounts holding their share are left out, so one account's backlog cannot fill the claims.
    const busyAccounts: number[] = [];
    for (const account of this.slots.accounts()) if (!this.slots.accountCanTakeBatch(account)) busyAccounts.push(account);
    const leaseId = this.o.nextId();
    const now = this.o.clock.now();
    const claimedAt = this.wall.now();
    this.stats.claims += 1;
    const claimStarted = performance.now();
    const rows = await this.o.queue.claim({
      now,
      leaseNow: this.wall.now(),
      leaseUntil: this.wall.now() + this.leaseMs,
      leaseId,
      instanceId: this.o.instanceId,
      limit,
      perChannel,
      perAccount: perChannel,
      scanLimit,
      excludeChannels: excludeChannels.slice(0, 500),
      excludeAccounts: busyAccounts.slice(0, 500),
    });
    const claimMs = performance.now() - claimStarted;
    this.stats.claimMs += claimMs;
    this.stats.claimMsMax = Math.max(this.stats.claimMsMax, claimMs);
    // A full scan window: more may be due beyond it. (Rows the scan saw but left, those of a
    // channel at its batch size, make their endpoint hungry below.)
    this.more = rows.length >= scanLimit;
    // Origins left out of this claim (busy), or that got all the claim allowed them, probably
    // have more due: claim for them as soon as they can take another batch.
    this.hungry.clear();
    for (const origin of busy) this.hungry.add(origin);
    this.hungryAccounts.clear();
    for (const account of busyAccounts) this.hungryAccounts.add(account);
    if (rows.length === 0) return;
    this.stats.claimed += rows.length;

    let targets: Map<number, WebhookTarget>;
    try {
      targets = await this.o.loadTargets([...new Set(rows.map((r) => r.channelId))]);
    } catch (error) {
      await this.o.queue
        .release(
          rows.map((r) => r.id),
          leaseId,
        )
        .catch(() => undefined);
      throw error;
    }
    const perChannelCount = new Map<number, number>();
    const perAccountCount = new Map<number, number>();
    const overflow: number[] = [];
    for (const row of rows) {
      perChannelCount.set(row.channelId, (perChannelCount.get(row.channelId) ?? 0) + 1);
      perAccountCount.set(row.accountId, (perAccountCount.get(row.accountId) ?? 0) + 1);
      const target = targets.get(row.channelId);
      if (!target || target.webhookId !== row.webhookId) {
        this.drop(row, leaseId);
        continue;
      }
      const origin = originOf(target.url);
      this.remember(row.channelId, origin);
      if (!this.slots.add(origin, row.accountId, `${row.channelId} ${origin}`, { row, target, leaseId, claimedAt })) {
        overflow.push(row.id);
        this.hungry.add(origin);
        this.hungryAccounts.add(row.accountId);
      }
    }
    if (perAccountCount.size > 1) for (const [account, count] of perAccountCount) if (count >= perChannel) this.hungryAccounts.add(account);
    for (const [channelId, count] of perChannelCount) {
      const origin = this.channelOrigin.get(channelId);
      if (origin !== undefined && count >= perChannel) this.hungry.add(origin);
    }
    if (overflow.length > 0) await this.o.queue.release(overflow, leaseId);
    this.pump();
  }

  private remember(channelId: number, origin: string): void {
    const before = this.channelOrigin.get(channelId);
    if (before === origin) return;
    if (before !== undefined) this.originChannels.get(before)?.delete(channelId);
    if (this.channelOrigin.size >= 10_000) {
      this.channelOrigin.clear();
      this.originChannels.clear();
    }
    this.channelOrigin.set(channelId, origin);
    let channels = this.originChannels.get(origin);
    if (!channels) {
      channels = new Set();
      this.originChannels.set(origin, channels);
    }
    channels.add(channelId);
  }

  /** Starts every held job that a free slot allows. */
  private pump(): void {
    for (let next = this.slots.take(); next; next = this.slots.take()) {
      const ticket: Ticket<Job> = next;
      const { job } = ticket;
      const task = this.deliver(job)
        .catch((error: unknown) => this.o.logger.error({ err: error, deliveryId: job.row.id }, 'webhook delivery crashed'))
        .finally(() => {
          this.inflight.delete(task);
          this.slots.finish(ticket);
          this.pump();
          if (this.running && (this.refillDue() || this.hungryAgain(ticket))) this.signal?.();
        });
      this.inflight.add(task);
    }
  }

  /** The endpoint or account of a call that ended was left out of a claim, and can take a batch now. */
  private hungryAgain(ticket: Ticket<Job>): boolean {
    return (
      (this.hungry.has(ticket.endpoint) && this.slots.canTakeBatch(ticket.endpoint)) ||
      (this.hungryAccounts.has(ticket.account) && this.slots.accountCanTakeBatch(ticket.account))
    );
  }

  private async deliver(job: Job): Promise<void> {
    const { row, leaseId } = job;
    let target: WebhookTarget | undefined = job.target;
    if (this.wall.now() - job.claimedAt > STALE_TARGET_MS) {
      try {
        target = (await this.o.loadTargets([row.channelId])).get(row.channelId);
      } catch {
        target = job.target; // the store is unreachable: the webhook as claimed will do
      }
      if (!target || target.webhookId !== row.webhookId) {
        this.drop(row, leaseId);
        return;
      }
    }
    const body = Buffer.from(row.body, 'utf8');
    const headers = webhookHeaders(
      { eventId: row.eventId, eventType: row.eventType, deliveryId: row.id, attempt: row.attempts + 1, body, secret: target.secret },
      this.o.sender.userAgent,
    );
    const attemptedAt = this.o.clock.now();
    let result: SendResult;
    try {
      result = await this.o.sender.send({ url: target.url, headers, body, sslVerification: target.sslVerification });
    } catch (error) {
      result = { statusCode: null, durationMs: 0, responseExcerpt: null, error: error instanceof Error ? error.message : String(error), aborted: false };
    }
    if (result.aborted) {
      // Cut off by shutdown: not the receiver's failure, so not a try. Another run sends it.
      await this.o.queue.release([row.id], leaseId).catch(() => undefined);
      return;
    }
    const now = this.o.clock.now();
    const step = nextStep(row.attempts, result.statusCode, now, this.o.retryScheduleSeconds);
    if (step.status === 'delivered') this.stats.delivered += 1;
    else this.stats.failedTries += 1;
    if (step.status === 'failed') {
      this.stats.gaveUp += 1;
      this.o.logger.warn(
        { deliveryId: row.id, eventId: row.eventId, channelId: row.channelId, tries: step.attempts },
        'webhook delivery failed after its last try',
      );
    }
    const lastError = result.error ?? (isSuccess(result.statusCode) ? null : `The receiver answered ${String(result.statusCode)}.`);
    this.record({
      id: row.id,
      leaseId,
      status: step.status,
      attempts: step.attempts,
      nextAttemptAt: step.nextAttemptAt,
      lastStatusCode: result.statusCode,
      lastError,
      updatedAt: now,
      attempt: {
        id: this.o.nextId(),
        attemptedAt,
        url: target.url,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        responseExcerpt: result.responseExcerpt,
        error: result.error,
      },
    });
  }

  /** The webhook was removed (or replaced) after the event: there is nothing to send it to. */
  private drop(row: ClaimedDelivery, leaseId: number): void {
    const now = this.o.clock.now();
    this.stats.dropped += 1;
    this.record({
      id: row.id,
      leaseId,
      status: 'dropped',
      attempts: row.attempts,
      nextAttemptAt: now,
      lastStatusCode: null,
      lastError: 'The webhook was removed.',
      updatedAt: now,
      attempt: null,
    });
  }

  /** Results are written back together: one transaction for everything that ended meanwhile. */
  private record(outcome: DeliveryOutcome): void {
    this.results.push(outcome);
    this.flushing ??= this.flush();
  }

  private async flush(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    let failures = 0;
    while (this.results.length > 0) {
      const batch = this.results.splice(0, FLUSH_BATCH);
      try {
        this.stats.flushes += 1;
        await this.o.queue.complete(batch);
        failures = 0;
      } catch (error) {
        this.results.unshift(...batch);
        failures += 1;
        this.o.logger.warn({ err: error, pending: this.results.length }, 'recording webhook results failed; retrying');
        // Unrecorded rows keep their lease; if this never succeeds they are sent again later.
        if (!this.running && failures >= 3) break;
        await sleep(Math.min(200 * 2 ** failures, 5000));
      }
    }
    this.flushing = null;
  }

  private async sweepOrphans(ownInstance: number | null): Promise<void> {
    this.lastSweep = this.wall.now();
    try {
      const freed = await this.o.queue.releaseOrphans(ownInstance);
      if (freed > 0) this.o.logger.info({ freed }, 'freed webhook deliveries held by a process that ended');
    } catch (error) {
      this.o.logger.warn({ err: error }, 'freeing orphaned webhook deliveries failed');
    }
  }

  /** Stops claiming, lets calls in flight end (up to the grace time), and records everything. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.signal?.();
    await this.unsubscribe();
    await this.loopDone;
    const waiting = this.slots.drainWaiting();
    const byLease = new Map<number, number[]>();
    for (const job of waiting) byLease.set(job.leaseId, [...(byLease.get(job.leaseId) ?? []), job.row.id]);
    for (const [leaseId, ids] of byLease) await this.o.queue.release(ids, leaseId).catch(() => undefined);
    if (this.inflight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.inflight]), new Promise((resolve) => (timer = setTimeout(resolve, this.o.shutdownGraceMs ?? 3000)))]);
      clearTimeout(timer);
      this.o.sender.abortAll();
      await Promise.allSettled([...this.inflight]);
    }
    while (this.flushing) await this.flushing;
    if (this.results.length > 0) this.flushing = this.flush();
    while (this.flushing) await this.flushing;
    await this.o.sender.close();
    this.o.logger.info({ stats: this.stats }, 'webhook worker stopped');
  }

  /** Calls in flight and rows held (tests and benchmarks). */
  get load(): { active: number; held: number } {
    return { active: this.slots.active, held: this.slots.heldCount };
  }
}
