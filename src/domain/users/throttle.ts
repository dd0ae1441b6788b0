import type { Store } from '../../store/store.js';
import type { Clock } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import { addressKey } from '../../lib/client-address.js';

export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const FAILURES_PER_EMAIL = 10;
export const FAILURES_PER_ADDRESS = 30;
const PRUNE_EVERY_MS = 60 * 60_000;

/**
 * Failed sign-ins counted per e-mail and per client address over a sliding window, kept in the
 * store so that every instance sees the same count. Past the limit of either, sign-in is refused
 * (even with the right password) until the oldest counted failure leaves the window.
 */
export class SignInThrottle {
  private lastPrune = 0;

  constructor(private readonly deps: { store: Store; clock: Clock; ids: IdGenerator }) {}

  private keys(emailKey: string, address: string): Array<{ key: string; limit: number }> {
    return [
      { key: `email:${emailKey}`, limit: FAILURES_PER_EMAIL },
      { key: `addr:${addressKey(address)}`, limit: FAILURES_PER_ADDRESS },
    ];
  }

  /** Seconds until a try is allowed again, or 0 when it is allowed now. */
  async retryAfter(emailKey: string, address: string): Promise<number> {
    const now = this.deps.clock.now();
    let wait = 0;
    for (const { key, limit } of this.keys(emailKey, address)) {
      const recent = await this.deps.store.signInFailures.recent(key, now - THROTTLE_WINDOW_MS, limit);
      // The limit-th newest failure leaving the window frees one try.
      if (recent.length >= limit) wait = Math.max(wait, recent[limit - 1]! + THROTTLE_WINDOW_MS - now);
    }
    return wait > 0 ? Math.ceil(wait / 1000) : 0;
  }

  async failed(emailKey: string, address: string): Promise<void> {
    const now = this.deps.clock.now();
    const entries = this.keys(emailKey, address).map(({ key }) => ({ id: this.deps.ids.nextNumber(), key }));
    await this.deps.store.signInFailures.record(entries, now);
    if (now - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await this.deps.store.signInFailures.prune(now - THROTTLE_WINDOW_MS);
    }
  }

  /** A successful sign-in forgets the e-mail's failures (the address keeps its count). */
  async succeeded(emailKey: string): Promise<void> {
    await this.deps.store.signInFailures.clear(`email:${emailKey}`);
  }
}
