import type { Store } from '../../store/store.js';
import type { Clock } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import { addressKey } from '../../lib/client-address.js';

export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const FAILURES_PER_EMAIL = 10;
export const FAILURES_PER_ADDRESS = 30;
/** Successful sign-ins are counted too: each starts a session after a password hash. */
export const SUCCESSES_PER_EMAIL = 30;
export const SUCCESSES_PER_ADDRESS = 60;
const PRUNE_EVERY_MS = 60 * 60_000;

/** One sign-in try, counted as a failure until it succeeds. */
export interface SignInAttempt {
  /** Seconds until a try is allowed again; 0 when this one may go on. */
  retryAfter: number;
  /** Its rows, counted as failures until `succeeded` removes them. */
  ids: number[];
  /** Refused because of successful sign-ins rather than failures. */
  successes?: boolean;
}

interface CountedKey {
  key: string;
  limit: number;
  /** Written by every try before its check (failures), or by successful ones only. */
  success: boolean;
}

/**
 * Failed sign-ins counted per e-mail and per client address over a sliding window, kept in the
 * store so that every instance sees the same count. Past the limit of either, sign-in is refused
 * (even with the right password) until the oldest counted failure leaves the window. Successful
 * sign-ins are counted likewise under keys of their own, with higher limits: a loop of correct
 * sign-ins costs a hash each and is no more free than a loop of guesses.
 *
 * A try is written as a failure before the password is checked and then counted with the others:
 * the k-th of many parallel tries sees at least k, so a burst cannot slip more than the limit
 * past a check that has not seen the others' failures yet.
 */
export class SignInThrottle {
  private lastPrune = 0;

  constructor(private readonly deps: { store: Store; clock: Clock; ids: IdGenerator }) {}

  private keys(emailKey: string, address: string): CountedKey[] {
    const addr = addressKey(address);
    return [
      { key: `email:${emailKey}`, limit: FAILURES_PER_EMAIL, success: false },
      { key: `addr:${addr}`, limit: FAILURES_PER_ADDRESS, success: false },
      { key: `ok-email:${emailKey}`, limit: SUCCESSES_PER_EMAIL, success: true },
      { key: `ok-addr:${addr}`, limit: SUCCESSES_PER_ADDRESS, success: true },
    ];
  }

  async begin(emailKey: string, address: string): Promise<SignInAttempt> {
    const { store, clock, ids } = this.deps;
    const now = clock.now();
    const keys = this.keys(emailKey, address);
    const entries = keys.filter((k) => !k.success).map(({ key }) => ({ id: ids.nextNumber(), key }));
    await store.signInFailures.record(entries, now);
    const mine = entries.map((e) => e.id);
    let blocked = false;
    let bySuccesses = false;
    for (const { key, limit, success } of keys) {
      // A failure key holds this try's own row; a success key must have room for one more.
      const over = success ? limit : limit + 1;
      if ((await store.signInFailures.recent(key, now - THROTTLE_WINDOW_MS, over)).length >= over) {
        blocked = true;
        if (success) bySuccesses = true;
      }
    }
    if (now - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await store.signInFailures.prune(now - THROTTLE_WINDOW_MS);
    }
    if (!blocked) return { retryAfter: 0, ids: mine };
    // A refused try is not a failure of its own: it must not push the end of the block further.
    await store.signInFailures.deleteIds(mine);
    let wait = 0;
    for (const { key, limit } of keys) {
      const recent = await store.signInFailures.recent(key, now - THROTTLE_WINDOW_MS, limit);
      // The limit-th newest failure leaving the window frees one try.
      if (recent.length >= limit) wait = Math.max(wait, recent[limit - 1]! + THROTTLE_WINDOW_MS - now);
    }
    // Other tries were being counted at the same moment: ask for a second's patience.
    return { retryAfter: Math.max(1, Math.ceil(wait / 1000)), ids: [], successes: bySuccesses };
  }

  /**
   * A successful sign-in is no failure, and forgets the e-mail's failures (the address keeps its
   * count); it is counted as a success of the e-mail and of the address.
   */
  async succeeded(emailKey: string, address: string, attempt: SignInAttempt): Promise<void> {
    const { store, ids, clock } = this.deps;
    await store.signInFailures.deleteIds(attempt.ids);
    await store.signInFailures.clear(`email:${emailKey}`);
    const counted = this.keys(emailKey, address).filter((k) => k.success);
    await store.signInFailures.record(
      counted.map(({ key }) => ({ id: ids.nextNumber(), key })),
      clock.now(),
    );
  }

  /** A password that was right where no session starts (a password change): the try is no failure. */
  async forget(attempt: SignInAttempt): Promise<void> {
    await this.deps.store.signInFailures.deleteIds(attempt.ids);
  }
}
