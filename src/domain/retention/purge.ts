import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { Store } from '../../store/store.js';
import type { StoredFiles } from '../../files/stored-files.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { PurgePacer, type LoadSample } from './pacer.js';
import { isStoreBusy } from '../../store/errors.js';

/** A batch the store was too busy for runs again this many times in all, after a pause growing by this much. */
const BUSY_TRIES = 5;
const BUSY_PAUSE_MS = 100;

/** How long each kind of row is kept once it is finished (ms), and how the purge paces itself. */
export interface RetentionSettings {
  /** Finished webhook deliveries (delivered, failed, dropped) and their attempts, from their last change. */
  deliveriesMs: number;
  /** Finished jobs (done, failed, expired), from their end. */
  jobsMs: number;
  /** How long an idempotency key answers with its first message, from the message's creation. */
  idempotencyKeysMs: number;
  /** Messages, from their creation; null: kept for ever (the default). */
  messagesMs: number | null;
  /** Events, from their creation; null: kept for ever (the default). */
  eventsMs: number | null;
  /** Time between two passes. */
  intervalMs: number;
  /** Rows deleted per transaction at most: the batch taken while the service is idle (pacer.ts). */
  batchSize: number;
  /** The shortest pause between two batches, taken while the service is idle. */
  pauseMs: number;
  /** The share of the time (percent) the batches may take while the service is busy. */
  loadSharePercent: number;
  /** The longest a batch may take while the service is busy (ms): longer ones are halved. */
  busyBatchMs: number;
}

/** What one pass deleted (idempotency keys: forgotten, their messages kept). */
export interface RetentionCounts {
  deliveries: number;
  jobs: number;
  idempotencyKeys: number;
  messages: number;
  events: number;
  files: number;
}

/**
 * Deletes what is past its age: finished webhook deliveries with their attempts, finished jobs,
 * idempotency keys, and where the operator asks, messages (with their events and the files only
 * they named) and events. Never what is still needed: a delivery or job still to run, an event
 * with a delivery still to make, a message a job or a delivery still needs, a contact's newest
 * message of each direction, a message whose idempotency key still answers (store/repos/retention.ts).
 *
 * A pass runs in one process at a time (Store.runAlone: on PostgreSQL an advisory lock across
 * processes). It deletes at most `batchSize` rows per transaction and pauses between batches,
 * both as the pacer (pacer.ts) measures the service's load, so sends go on meanwhile; the bytes of deleted files are removed only after their rows' commit. Every
 * cutoff is taken once at the start of a pass.
 */
export class RetentionPurge {
  constructor(private readonly deps: { store: Store; files: StoredFiles; clock: Clock; settings: RetentionSettings; logger: Logger }) {}

  /** One pass; null when another pass holds the purge (here or in another process). */
  async purge(signal?: AbortSignal): Promise<RetentionCounts | null> {
    const outcome = await this.deps.store.runAlone('retention', () => this.pass(signal));
    return outcome.ran ? outcome.value : null;
  }

  private async pass(signal: AbortSignal | undefined): Promise<RetentionCounts> {
    const { store, settings } = this.deps;
    const now = this.deps.clock.now();
    // One pacer a pass: what it learns of the batches' cost holds for this pass's load.
    const pacer = new PurgePacer(
      { maxBatch: settings.batchSize, minPauseMs: settings.pauseMs, loadSharePercent: settings.loadSharePercent, busyBatchMs: settings.busyBatchMs },
      { now: () => performance.now() },
    );
    const counts: RetentionCounts = { deliveries: 0, jobs: 0, idempotencyKeys: 0, messages: 0, events: 0, files: 0 };
    counts.deliveries = await this.drain(pacer, (limit) => counted(store.retention.deliveries(now - settings.deliveriesMs, limit), limit), signal);
    counts.jobs = await this.drain(pacer, (limit) => counted(store.retention.jobs(now - settings.jobsMs, limit), limit), signal);
    if (settings.messagesMs !== null) {
      const before = now - settings.messagesMs;
      const keysBefore = now - settings.idempotencyKeysMs;
      let after = 0;
      counts.messages = await this.drain(
        pacer,
        async (limit) => {
          const { deleted, keys } = await store.transaction(async (tx) => {
            const rows = await tx.retention.messages(before, keysBefore, after, limit);
            after = rows[rows.length - 1]?.id ?? after;
            const keys: string[] = [];
            for (const row of rows) {
              const ids = this.fileIdsIn(row.content);
              if (ids.length > 0) keys.push(...(await tx.retention.filesNamedOnlyBy(row.account_id, row.contact_id, ids)));
            }
            return { deleted: rows.length, keys };
          });
          const full = deleted === limit;
          // After the commit: a rolled-back batch leaves every file with its row.
          if (keys.length > 0) {
            await this.deps.files.remove(keys);
            counts.files += keys.length;
          }
          return { deleted, full };
        },
        signal,
      );
    }
    if (settings.eventsMs !== null) {
      const before = now - settings.eventsMs;
      let after = 0;
      counts.events = await this.drain(
        pacer,
        async (limit) => {
          const { deleted, chosen, lastId } = await store.retention.events(before, after, limit);
          after = lastId ?? after;
          return { deleted, full: chosen === limit };
        },
        signal,
      );
    }
    counts.idempotencyKeys = await this.drain(
      pacer,
      (limit) => counted(store.retention.idempotencyKeys(now - settings.idempotencyKeysMs, limit), limit),
      signal,
    );
    return counts;
  }

  /**
   * Runs batches of the pacer's size until one comes back short (nothing more is due) or the
   * signal stops the pass, pausing between them as the pacer says; answers the rows deleted.
   */
  private async drain(
    pacer: PurgePacer,
    batch: (limit: number) => Promise<{ deleted: number; full: boolean }>,
    signal: AbortSignal | undefined,
  ): Promise<number> {
    let total = 0;
    let load: LoadSample = { eventLoopBusy: null, queriesElsewhere: null, transactions: null };
    for (;;) {
      if (signal?.aborted) return total;
      pacer.batchStarted();
      const { deleted, full } = await this.retryingBusy(() => batch(pacer.batchSize), signal);
      total += deleted;
      if (!full) return total;
      const { pauseMs } = pacer.batchEnded(load);
      // What the service does during the pause (this process's event loop, the store's other
      // queries) tells the pacer how busy it is when the next batch ends.
      const loop = performance.eventLoopUtilization();
      await sleep(pauseMs, undefined, { signal }).catch(() => undefined);
      const store = await this.deps.store.storeLoad().catch(() => null);
      load = {
        eventLoopBusy: pauseMs > 0 ? performance.eventLoopUtilization(loop).utilization : null,
        queriesElsewhere: store?.queriesElsewhere ?? null,
        transactions: store?.transactions ?? null,
      };
    }
  }

  /**
   * One batch, run again when the store was busy with another connection's lock (on SQLite the
   * checkpoint's, which a transaction that read first cannot wait for): a batch that failed
   * rolled back whole, so running it again deletes nothing twice. Other errors end the pass.
   */
  private async retryingBusy<T>(run: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await run();
      } catch (error) {
        if (!isStoreBusy(error) || tries >= BUSY_TRIES || signal?.aborted) throw error;
        await sleep(BUSY_PAUSE_MS * tries, undefined, { signal }).catch(() => undefined);
        // Stopped during the pause: the pass ends as it would have with the error.
        if (signal?.aborted) throw error;
      }
    }
  }

  /** The ids of this service's files a message's content names (by their public URL). */
  private fileIdsIn(content: string): string[] {
    const ids = new Set<string>();
    const visit = (value: unknown): void => {
      if (typeof value === 'string') {
        const id = this.deps.files.idFromUrl(value);
        if (id) ids.add(id);
      } else if (Array.isArray(value)) value.forEach(visit);
      else if (value !== null && typeof value === 'object') Object.values(value).forEach(visit);
    };
    try {
      visit(JSON.parse(content));
    } catch {
      // Content that cannot be read names no file.
    }
    return [...ids];
  }
}

/** A batch that deletes what it chose: full when it deleted a whole batch. */
async function counted(deleting: Promise<number>, limit: number): Promise<{ deleted: number; full: boolean }> {
  const deleted = await deleting;
  return { deleted, full: deleted >= limit };
}

/** Runs the purge every `intervalMs` on a worker process; a pass still running skips the next turn. */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<unknown> | null = null;
  private readonly stopping = new AbortController();

  constructor(private readonly deps: { purge: RetentionPurge; intervalMs: number; logger: Logger }) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.deps.intervalMs);
    this.timer.unref();
  }

  private tick(): void {
    if (this.current) return;
    this.current = this.deps.purge
      .purge(this.stopping.signal)
      .then(
        (counts) => {
          if (counts && Object.values(counts).some((n) => n > 0)) this.deps.logger.info({ ...counts }, 'retention: deleted rows past their age');
        },
        (error: unknown) => this.deps.logger.error({ err: error }, 'retention purge failed; tried again at the next interval'),
      )
      .finally(() => (this.current = null));
  }

  /** Stops the timer and the pass under way (after its current batch). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopping.abort();
    await this.current;
  }
}
