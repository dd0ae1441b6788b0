import type { WriteUnit } from './write-unit.js';

/** A unit waiting for its batch; the flush settles each one by itself. */
export interface PendingUnit {
  unit: WriteUnit;
  resolve(): void;
  reject(error: unknown): void;
}

export interface BatcherOptions {
  /** Batches being written at once (1 on SQLite: one connection). */
  maxInFlight: number;
  /** Units per batch at most (PostgreSQL: bounds the parameters of one statement). */
  maxUnits: number;
  /**
   * While a batch is being written, another starts only once this many units wait (default 1:
   * at once). A batch's fixed cost (its round trip, its commit) is paid once however many units
   * it carries, so waiting for the batch in flight to end makes the next one larger.
   */
  overlapAt?: number;
}

/**
 * Group commit: units submitted during one event-loop turn are written together after it
 * (setImmediate), in one transaction or statement. Under load, units that arrive while every
 * batch slot is busy wait for the next batch, so batches grow with the load. A unit's promise
 * settles after its batch has committed: a resolved unit is durable.
 */
export class WriteBatcher {
  private queue: PendingUnit[] = [];
  private scheduled = false;
  private inFlight = 0;
  private idle: Array<() => void> = [];

  constructor(
    private readonly flush: (batch: PendingUnit[]) => Promise<void>,
    private readonly options: BatcherOptions,
  ) {}

  submit(unit: WriteUnit): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ unit, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once every submitted unit has been written (used on shutdown). */
  drain(): Promise<void> {
    if (this.queue.length === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled || !this.mayStart()) return;
    this.scheduled = true;
    setImmediate(() => this.run());
  }

  private mayStart(): boolean {
    if (this.queue.length === 0 || this.inFlight >= this.options.maxInFlight) return false;
    return this.inFlight === 0 || this.queue.length >= (this.options.overlapAt ?? 1);
  }

  private run(): void {
    this.scheduled = false;
    while (this.mayStart()) {
      const batch = this.queue.length <= this.options.maxUnits ? this.queue : this.queue.slice(0, this.options.maxUnits);
      this.queue = batch === this.queue ? [] : this.queue.slice(this.options.maxUnits);
      this.inFlight += 1;
      this.flush(batch)
        .catch((error: unknown) => {
          for (const p of batch) p.reject(error);
        })
        .finally(() => {
          this.inFlight -= 1;
          if (this.queue.length > 0) this.schedule();
          else if (this.inFlight === 0) for (const done of this.idle.splice(0)) done();
        });
    }
  }
}
