import type { NlpStatsDelta, NlpRepo } from '../../store/repos/nlp.js';
import type { Logger } from '../../lib/logger.js';

/** This process's NLP counts since it started (for tests, benchmarks and the logs). */
export interface NlpProcessStats {
  classified: number;
  failed: number;
  timedOut: number;
}

/**
 * Counts the outcome of every NLP call on a received message: in memory per integration, added
 * to the integration's row every few seconds (one statement per integration, not one per message)
 * and whenever the API reads it, so the counts of every instance add up.
 */
export class NlpStats {
  private pending = new Map<number, NlpStatsDelta>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  readonly totals: NlpProcessStats = { classified: 0, failed: 0, timedOut: 0 };

  constructor(
    private readonly repo: () => NlpRepo,
    private readonly flushMs: number,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  private delta(channelId: number): NlpStatsDelta {
    let d = this.pending.get(channelId);
    if (!d) {
      d = { channelId, classified: 0, failed: 0, timedOut: 0, lastFailure: null };
      this.pending.set(channelId, d);
    }
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref();
    }
    return d;
  }

  classified(channelId: number): void {
    this.delta(channelId).classified++;
    this.totals.classified++;
  }

  failed(channelId: number, kind: 'failed' | 'timed_out', at: number, message: string): void {
    const d = this.delta(channelId);
    if (kind === 'timed_out') {
      d.timedOut++;
      this.totals.timedOut++;
    } else {
      d.failed++;
      this.totals.failed++;
    }
    d.lastFailure = { at, message };
  }

  /** Writes what was counted; flushes run one after the other. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pending.size === 0) return this.flushing;
    const deltas = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = this.flushing.then(() =>
      this.repo()
        .addStats(deltas)
        .catch((err: unknown) => this.logger.warn({ err }, 'NLP statistics could not be written; these counts are lost')),
    );
    return this.flushing;
  }
}
