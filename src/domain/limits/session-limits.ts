import type { Clock } from '../../lib/clock.js';
import { TokenBuckets } from '../../lib/token-buckets.js';
import { ConcurrencyGate } from './rate-limiter.js';

/** Requests of an account's administration sessions in flight at once, per instance. */
export const SESSION_CONCURRENCY = 8;
/** Reads of an account's administration sessions: a burst of 300, then 5 a second, per instance. */
export const SESSION_READ_BURST = 300;
export const SESSION_READS_PER_SECOND = 5;

export const SESSION_BUSY = `Too many requests of this account's administration sessions at once (${SESSION_CONCURRENCY}). Try again in a moment.`;
export const SESSION_READS_SPENT = "Too many reads by this account's administration sessions. Try again in a moment.";

/**
 * The administration app's own bounds, apart from the plan's quota and concurrency cap: the app's
 * reads (pages, a conversation polled every 2 s) must not lock a free plan out of its own API,
 * yet a session must not be an unmetered way around the plan either. Per account and instance:
 * at most SESSION_CONCURRENCY requests at once, and reads from a token bucket.
 */
export class SessionLimits {
  private readonly gate = new ConcurrencyGate();
  private readonly reads: TokenBuckets;

  constructor(clock: Clock) {
    this.reads = new TokenBuckets(SESSION_READ_BURST, SESSION_READS_PER_SECOND, 1000, () => clock.now());
  }

  /** Takes one read; the seconds to wait when there is none left, else 0. */
  takeRead(accountId: number): number {
    const key = String(accountId);
    if (this.reads.take(key)) return 0;
    return Math.max(1, Math.ceil(this.reads.waitMs(key) / 1000));
  }

  /** Gives a read back that was refused for another reason (no slot free). */
  refundRead(accountId: number): void {
    this.reads.refund(String(accountId), 1);
  }

  tryAcquire(accountId: number): boolean {
    return this.gate.tryAcquire(accountId, SESSION_CONCURRENCY);
  }

  release(accountId: number): void {
    this.gate.release(accountId);
  }
}
