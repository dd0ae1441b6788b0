import type { Clock } from '../lib/clock.js';
import { systemClock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { DeliveryOutcome, DeliveryQueue } from '../store/delivery-queue.js';
import { QueueRunner, type RunnerStats } from '../queue/runner.js';
import { WebhookDeliveries, type WebhookTaskOptions, type HeldDelivery, type Sender, type TargetLoader, type WebhookTaskStats } from './webhook-task.js';
import type { Ticket } from './endpoint-slots.js';

export type { Sender, TargetLoader, WebhookTarget } from './webhook-task.js';

/**
 * Claims woken by new events wait four times the last claim's own time, at most 10 ms (claims
 * for free room go at once): at 1,000 events/s a claim per commit of the send path was about 200
 * claims a second of 5 rows each, and where claims are slow (a busy machine, a large backlog)
 * they fell behind. Where claims are cheap, the wait is a fraction of a millisecond.
 */
const WAKE_CLAIM_GAP_MS = 10;
const WAKE_CLAIM_GAP_FACTOR = 4;
/**
 * After a claim that found nothing (everything due is for receivers at their limit, which the
 * claim reads through to say so), woken claims wait twenty times its time, at most 100 ms: such
 * claims then take at most about 5% of the time. A receiver's own next batch is claimed as soon
 * as it has room, whatever the wait; only new events of other receivers may wait that long.
 */
const EMPTY_CLAIM_GAP_FACTOR = 20;
const EMPTY_CLAIM_GAP_MS = 100;
/** Outcomes are written back at most this often: about ten a commit at 1,000/s, where it was one or two. */
const FLUSH_DELAY_MS = 10;

export interface DeliveryWorkerOptions {
  queue: DeliveryQueue;
  loadTargets: TargetLoader;
  /** Owned by the worker from now on: closed when it stops. */
  sender: Sender;
  /** Due-ness, attempt times and the retry schedule run on this clock (tests inject one). */
  clock: Clock;
  /** Leases are about processes that die, so they run on wall time. */
  wallClock?: Clock;
  /** The process's instance number (see RunnerOptions). */
  instanceId: number | (() => number);
  nextId: () => number;
  retryScheduleSeconds: readonly number[];
  /** The most jitter adds to a retry's delay, as a fraction of it (default 0: the schedule exactly). */
  retryJitter?: number;
  timeoutMs: number;
  concurrency: number;
  endpointConcurrency: number;
  /** Calls in flight for one account (default: `concurrency`, no account cap). */
  accountConcurrency?: number;
  pollMs: number;
  logger: Logger;
  /** Told of each attempt's outcome (metrics); see WebhookTaskOptions. */
  onOutcome?: WebhookTaskOptions['onOutcome'];
  /** How long stop() lets calls in flight finish before cutting them off. */
  shutdownGraceMs?: number;
}

/** The runner's counters (claims, result batches) and what became of the webhook deliveries. */
export type WorkerStats = RunnerStats & WebhookTaskStats;

/**
 * The webhook worker: webhook deliveries (webhook-task.ts) run by a queue runner. It claims due
 * deliveries, sends them with per-endpoint and per-account caps, and writes each attempt and the
 * row's next state back in batches (group commit). Wakes at once when told that new events
 * committed, and polls every `pollMs` for retries coming due.
 */
export class DeliveryWorker {
  private readonly deliveries: WebhookDeliveries;
  private readonly runner: QueueRunner<HeldDelivery, Ticket<HeldDelivery>, DeliveryOutcome>;
  private running = false;

  constructor(private readonly o: DeliveryWorkerOptions) {
    const wallClock = o.wallClock ?? systemClock;
    this.deliveries = new WebhookDeliveries({
      ...o,
      wallClock,
      retryJitter: o.retryJitter ?? 0,
      accountConcurrency: o.accountConcurrency ?? o.concurrency,
    });
    this.runner = new QueueRunner(this.deliveries, {
      instanceId: o.instanceId,
      nextId: o.nextId,
      pollMs: o.pollMs,
      logger: o.logger,
      wallClock,
      shutdownGraceMs: o.shutdownGraceMs,
      wakeClaimGapMs: WAKE_CLAIM_GAP_MS,
      wakeClaimGapFactor: WAKE_CLAIM_GAP_FACTOR,
      emptyClaimGapFactor: EMPTY_CLAIM_GAP_FACTOR,
      emptyClaimGapMs: EMPTY_CLAIM_GAP_MS,
      flushDelayMs: FLUSH_DELAY_MS,
    });
  }

  get stats(): WorkerStats {
    return { ...this.runner.stats, ...this.deliveries.stats };
  }

  start(): void {
    this.running = true;
    this.runner.start();
  }

  /** New work may be due (events committed, a redelivery asked for). */
  wake(): void {
    this.runner.wake();
  }

  /** Stops claiming, lets calls in flight end (up to the grace time), and records everything. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    await this.runner.stop();
    await this.o.sender.close();
    this.o.logger.info({ stats: this.stats }, 'webhook worker stopped');
  }

  /** Started and not stopped: its queue is being worked (readiness). */
  get active(): boolean {
    return this.running && this.runner.active;
  }

  /** Calls in flight and rows held (tests and benchmarks). */
  get load(): { active: number; held: number } {
    return this.runner.load;
  }
}
