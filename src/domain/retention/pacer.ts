import type { Clock } from '../../lib/clock.js';

/** How the purge's pace is bounded (docs/retention.md#pacing). */
export interface PacerSettings {
  /** The largest batch, taken when the service is idle (RETENTION_BATCH_SIZE). */
  maxBatch: number;
  /** The shortest pause between batches, taken when the service is idle (RETENTION_BATCH_PAUSE_MS). */
  minPauseMs: number;
  /** The share of the time (percent) the purge's batches may take while the service is busy (RETENTION_LOAD_SHARE_PERCENT). */
  loadSharePercent: number;
  /** The longest a batch may take while the service is busy: longer ones are halved. */
  busyBatchMs: number;
}

/** What the service was doing while the purge paused, as far as this process can tell. */
export interface LoadSample {
  /** Share (0..1) of the pause this process's event loop spent working; null: not measured. */
  eventLoopBusy: number | null;
  /** Queries of the store running or waiting for a connection, the purge's own apart; null: unknown (SQLite). */
  queriesElsewhere: number | null;
  /** The database's transactions so far, every session's (a running total, up to a second late); null: unknown (SQLite). */
  transactions: number | null;
}

/** The next batch's size and the pause before it. */
export interface Pace {
  batch: number;
  pauseMs: number;
}

/** The event loop counts as busy above this share of a pause. */
const BUSY_EVENT_LOOP = 0.3;
/** A batch this many times slower than the usual of its size is taken for a busy database. */
const BUSY_SLOWDOWN = 3;
/** Weight of the latest batch in the usual time of its size (a moving average). */
const USUAL_WEIGHT = 0.2;
/** Batches shorter than this say nothing about the load (timer resolution, one round trip). */
const MEASURABLE_MS = 1;
/** Other sessions' transactions a second above which the database is busy (an idle service's workers poll a few a second). */
export const BUSY_TRANSACTIONS_PER_SECOND = 20;
/** The window the transaction rate is taken over: the database's statistics come up to a second late. */
const RATE_WINDOW_MS = 3_000;
/** Transactions of the purge itself per batch: the batch and the sampling query. */
const OWN_TRANSACTIONS = 2;
/** Idle batches in a row before the purge takes the service for idle again. */
const CALM_BATCHES = 3;
/** The longest pause, whatever a batch took: the purge always moves. */
export const MAX_PAUSE_MS = 2_000;
/** The smallest batch. */
export const MIN_BATCH = 10;

/**
 * Paces the retention purge by what it measures (additive increase, multiplicative decrease).
 * Each batch is timed; two batches in a row much slower than the usual batch of their size,
 * this process's event loop busy during the pause, other queries running on the store, or other
 * sessions' transactions at BUSY_TRANSACTIONS_PER_SECOND or more mark the service busy (the
 * last two are seen from any process: the purge may run on a worker, the load on the APIs). Busy: the batch halves until it takes at most `busyBatchMs`, and the pause
 * after it is long enough that batches take at most `loadSharePercent` of the time. Idle for a
 * few batches in a row: the batch grows by a tenth of the largest and the pause is `minPauseMs`.
 * A pass starts cautious (small batch, busy), as a purge may start in the middle of the load.
 *
 * Guarantees: a batch of at least MIN_BATCH rows at least every MAX_PAUSE_MS plus one batch,
 * whatever the load; under load the purge keeps about `loadSharePercent` of its idle pace.
 */
export class PurgePacer {
  private batch: number;
  private busy = true;
  private calm = 0;
  /** Batches in a row much slower than usual: one alone is noise (a shared host, a checkpoint). */
  private slowRun = 0;
  private startedAt: number | null = null;
  /** Transaction totals seen, oldest first, with when and how many batches of ours came before. */
  private readonly totals: Array<{ at: number; transactions: number; batches: number }> = [];
  private batchesRun = 0;
  /** The usual time of a batch per batch-size class (powers of two), ms: a moving average. */
  private readonly usual = new Map<number, number>();

  constructor(
    private readonly settings: PacerSettings,
    /** A monotonic clock (ms). */
    private readonly clock: Clock,
  ) {
    this.batch = Math.min(MIN_BATCH, settings.maxBatch);
  }

  /** The size of the batch about to run; call batchStarted() just before running it. */
  get batchSize(): number {
    return this.batch;
  }

  /** Whether the last batches found the service busy. */
  get isBusy(): boolean {
    return this.busy;
  }

  batchStarted(): void {
    this.startedAt = this.clock.now();
  }

  /** The batch that began at batchStarted() ended; `load` is what the pause before it saw. */
  batchEnded(load: LoadSample): Pace {
    const ms = Math.max(0, this.clock.now() - (this.startedAt ?? this.clock.now()));
    this.startedAt = null;
    this.slowRun = this.slowerThanUsual(this.batch, ms) ? this.slowRun + 1 : 0;
    const slow = this.slowRun >= 2;
    this.batchesRun += 1;
    const rate = load.transactions === null ? null : this.transactionRate(load.transactions);
    const busyNow =
      slow ||
      (load.eventLoopBusy !== null && load.eventLoopBusy >= BUSY_EVENT_LOOP) ||
      (load.queriesElsewhere !== null && load.queriesElsewhere > 0) ||
      (rate !== null && rate >= BUSY_TRANSACTIONS_PER_SECOND);
    const { maxBatch, minPauseMs, loadSharePercent, busyBatchMs } = this.settings;
    const step = Math.max(1, Math.ceil(maxBatch / 10));
    const minBatch = Math.min(MIN_BATCH, maxBatch);
    if (busyNow) {
      this.busy = true;
      this.calm = 0;
    } else if (this.busy && ++this.calm >= CALM_BATCHES) {
      this.busy = false;
    }
    if (this.busy) {
      if (ms > busyBatchMs) this.batch = Math.max(minBatch, Math.floor(this.batch / 2));
      else if (ms < busyBatchMs / 2) this.batch = Math.min(maxBatch, this.batch + Math.max(1, Math.ceil(step / 4)));
      // Batches take at most loadSharePercent of the time: the pause is the rest.
      const share = Math.min(100, Math.max(1, loadSharePercent)) / 100;
      const pauseMs = Math.min(MAX_PAUSE_MS, Math.max(minPauseMs, Math.ceil((ms * (1 - share)) / share)));
      return { batch: this.batch, pauseMs };
    }
    this.batch = Math.min(maxBatch, this.batch + step);
    return { batch: this.batch, pauseMs: minPauseMs };
  }

  /**
   * Other sessions' transactions a second over the last few seconds, from the database's running
   * total less the purge's own; null until the window holds a second.
   */
  private transactionRate(total: number): number | null {
    const now = this.clock.now();
    this.totals.push({ at: now, transactions: total, batches: this.batchesRun });
    while (this.totals.length > 2 && now - this.totals[1]!.at >= RATE_WINDOW_MS) this.totals.shift();
    const first = this.totals[0]!;
    const seconds = (now - first.at) / 1000;
    if (seconds < 1) return null;
    const others = total - first.transactions - (this.batchesRun - first.batches) * OWN_TRANSACTIONS;
    return Math.max(0, others) / seconds;
  }

  /**
   * Records a batch's time and answers whether it was much slower than the usual of its size.
   * A moving average, not the quickest: on a shared host batch times scatter, and one lucky
   * batch must not make every later one look slow. Sustained load becomes the usual: from then
   * on the other signs tell it.
   */
  private slowerThanUsual(rows: number, ms: number): boolean {
    const size = 2 ** Math.floor(Math.log2(Math.max(1, rows)));
    const usual = this.usual.get(size);
    this.usual.set(size, usual === undefined ? ms : usual + (ms - usual) * USUAL_WEIGHT);
    if (usual === undefined || ms < MEASURABLE_MS) return false;
    return ms > Math.max(usual, MEASURABLE_MS) * BUSY_SLOWDOWN;
  }
}
