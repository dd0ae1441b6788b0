import type { RateCounter } from '../../store/store.js';
import type { Clock } from '../../lib/clock.js';

export interface QuotaState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** End of the current window, UTC epoch seconds. */
  reset: number;
}

/**
 * The hourly request quota: a fixed window per account. Once the count passes the limit every
 * request is refused until the window ends. The counter is shared across instances on PostgreSQL.
 */
export class RateLimiter {
  private lastPrune = 0;

  constructor(
    private readonly counter: RateCounter,
    private readonly clock: Clock,
    private readonly windowSeconds: number,
  ) {}

  /** The current window's count, without counting a request. */
  async usage(accountId: number, limit: number): Promise<QuotaUsage> {
    const windowStart = this.windowStart();
    const used = await this.counter.used(accountId, windowStart);
    return { windowStart, limit, used, remaining: Math.max(limit - used, 0) };
  }

  private windowStart(): number {
    const windowMs = this.windowSeconds * 1000;
    return Math.floor(this.clock.now() / windowMs) * windowMs;
  }

  async consume(accountId: number, limit: number): Promise<QuotaState> {
    const now = this.clock.now();
    const windowMs = this.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const count = await this.counter.hit(accountId, windowStart, limit);
    if (now - this.lastPrune > windowMs) {
      this.lastPrune = now;
      await this.counter.prune(windowStart);
    }
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(limit - count, 0),
      reset: Math.ceil((windowStart + windowMs) / 1000),
    };
  }
}

/** This hour's usage of an account, as the administration app shows it. */
export interface QuotaUsage {
  /** Start of the current window, ms since the epoch. */
  windowStart: number;
  limit: number;
  used: number;
  remaining: number;
}

/** Caps requests in flight per account on this instance (the plan's simultaneous connections). */
export class ConcurrencyGate {
  private readonly inFlight = new Map<number, number>();

  tryAcquire(accountId: number, cap: number): boolean {
    const current = this.inFlight.get(accountId) ?? 0;
    if (current >= cap) return false;
    this.inFlight.set(accountId, current + 1);
    return true;
  }

  release(accountId: number): void {
    const current = this.inFlight.get(accountId) ?? 0;
    if (current <= 1) this.inFlight.delete(accountId);
    else this.inFlight.set(accountId, current - 1);
  }
}
