/**
 * Decimal string ids, unique across the service, increasing with creation time and below 2^53
 * (clients compare them with parseInt). Layout of the number:
 *   (milliseconds since 2024-01-01) * 4096 + instance (0..15) * 256 + sequence (0..255)
 * 41 bits of time last until about 2093. Several processes on one database each hold a distinct
 * instance number (the PostgreSQL store leases it with an advisory lock). The number may be given
 * as a function, asked at every id: it may throw (the lease is not held now) and may change (a
 * lease taken back under another number).
 */
const EPOCH = Date.UTC(2024, 0, 1);
export const MAX_INSTANCES = 16;
const SEQUENCES = 256;

export class IdGenerator {
  private lastMs = 0;
  private sequence = 0;

  constructor(
    private readonly instance: number | (() => number),
    private readonly now: () => number = Date.now,
  ) {
    if (typeof instance === 'number') checkInstance(instance);
  }

  nextNumber(): number {
    const instance = typeof this.instance === 'number' ? this.instance : checkInstance(this.instance());
    let ms = Math.max(this.now() - EPOCH, 0);
    if (ms <= this.lastMs) {
      // Same millisecond (or the clock stepped back): keep counting from the last one so ids stay increasing.
      ms = this.lastMs;
      this.sequence += 1;
      if (this.sequence >= SEQUENCES) {
        ms += 1;
        this.sequence = 0;
      }
    } else {
      this.sequence = 0;
    }
    this.lastMs = ms;
    return ms * 4096 + instance * SEQUENCES + this.sequence;
  }

  next(): string {
    return String(this.nextNumber());
  }
}

function checkInstance(instance: number): number {
  if (!Number.isInteger(instance) || instance < 0 || instance >= MAX_INSTANCES) {
    throw new Error(`id instance must be 0..${MAX_INSTANCES - 1}`);
  }
  return instance;
}

/** The smallest id any generator can make at `ms` (ms since the epoch) or later. */
export function firstIdAt(ms: number): number {
  return Math.max(ms - EPOCH, 0) * 4096;
}

/** When an id was made (ms since the epoch, on the clock of its generator). */
export function timeOfId(id: number): number {
  return Math.floor(id / 4096) + EPOCH;
}

/** Ids arrive from clients as strings; anything that is not a safe positive integer cannot exist. */
export function parseId(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : null;
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,15}$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}
