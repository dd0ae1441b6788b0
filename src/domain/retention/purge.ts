import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../store/store.js';
import type { StoredFiles } from '../../files/stored-files.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';

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
  /** Rows deleted per transaction. */
  batchSize: number;
  /** Pause between two batches, so the requests in between find the database free. */
  pauseMs: number;
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
 * processes). It deletes `batchSize` rows per transaction and pauses between batches, so sends
 * go on meanwhile; the bytes of deleted files are removed only after their rows' commit. Every
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
    const limit = settings.batchSize;
    const counts: RetentionCounts = { deliveries: 0, jobs: 0, idempotencyKeys: 0, messages: 0, events: 0, files: 0 };
    counts.deliveries = await this.drain(() => this.counted(store.retention.deliveries(now - settings.deliveriesMs, limit)), signal);
    counts.jobs = await this.drain(() => this.counted(store.retention.jobs(now - settings.jobsMs, limit)), signal);
    if (settings.messagesMs !== null) {
      const before = now - settings.messagesMs;
      const keysBefore = now - settings.idempotencyKeysMs;
      let after = 0;
      counts.messages = await this.drain(async () => {
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
      }, signal);
    }
    if (settings.eventsMs !== null) {
      const before = now - settings.eventsMs;
      let after = 0;
      counts.events = await this.drain(async () => {
        const { deleted, chosen, lastId } = await store.retention.events(before, after, limit);
        after = lastId ?? after;
        return { deleted, full: chosen === limit };
      }, signal);
    }
    counts.idempotencyKeys = await this.drain(() => this.counted(store.retention.idempotencyKeys(now - settings.idempotencyKeysMs, limit)), signal);
    return counts;
  }

  /** Runs batches until one comes back short (nothing more is due) or the signal stops the pass; answers the rows deleted. */
  private async drain(batch: () => Promise<{ deleted: number; full: boolean }>, signal: AbortSignal | undefined): Promise<number> {
    let total = 0;
    for (;;) {
      if (signal?.aborted) return total;
      const { deleted, full } = await batch();
      total += deleted;
      if (!full) return total;
      // Let the requests waiting meanwhile run before the next batch.
      await sleep(this.deps.settings.pauseMs, undefined, { signal }).catch(() => undefined);
    }
  }

  /** A batch that deletes what it chose: full when it deleted a whole batch. */
  private async counted(deleting: Promise<number>): Promise<{ deleted: number; full: boolean }> {
    const deleted = await deleting;
    return { deleted, full: deleted >= this.deps.settings.batchSize };
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
