import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { RateCounter } from '../store.js';

/** Tickets one instance may hold ahead of its requests, at most. */
const MAX_LEASE = 1024;
/** A lease used up sooner than this after it was granted doubles the next one. */
const GROW_WITHIN_MS = 200;
/** Of the quota still free, an instance leases at most this share ahead of demand. */
const FREE_SHARE = 1 / 16;

interface AccountWindow {
  accountId: number;
  windowStart: number;
  /** The account's hourly limit, as the latest request gave it. */
  limit: number;
  /** The lease: tickets (next, end] of the shared count are this instance's to hand out. */
  next: number;
  end: number;
  /** Extra tickets taken with the last lease, and when it was granted. */
  spare: number;
  grantedAt: number;
  /** The shared count as last read: what is left of the quota, seen from here. */
  known: number;
  waiters: Array<{ resolve(n: number): void; reject(e: unknown): void }>;
  asking: boolean;
}

/**
 * The hourly quota shared by every instance on one database, without a round trip per request.
 * Each request takes a ticket: its position in the account's count for the window, unique across
 * instances, so "ticket <= limit" admits exactly `limit` requests in all. An instance takes tickets
 * in blocks (one upsert adding the block's size to the shared row) and hands them out locally.
 *
 * A block is the hits waiting in this turn, plus spare tickets for an account whose last block
 * ran out quickly (doubling up to MAX_LEASE) but never more than a sixteenth of the quota still
 * free: near the limit, blocks shrink to the requests at hand and the count is exact, as it is
 * for an account sending a request now and then. Spare tickets an instance holds when the
 * window ends are lost; so the count can run ahead of the requests by the spares each instance
 * holds, and X-RateLimit-Remaining from one instance does not see the spares of the others.
 */
export class LeasedRateCounter implements RateCounter {
  private readonly accounts = new Map<number, AccountWindow>();
  /** Windows with requests waiting for tickets (a window replaced by the next one stays here until answered). */
  private readonly due = new Set<AccountWindow>();
  private scheduled = false;

  constructor(private readonly db: Kysely<Database>) {}

  hit(accountId: number, windowStart: number, limit: number): Promise<number> {
    let state = this.accounts.get(accountId);
    if (!state || state.windowStart !== windowStart) {
      // A new window starts with no lease; requests still waiting in the old one are answered from it.
      state = { accountId, windowStart, limit, next: 0, end: 0, spare: 0, grantedAt: 0, known: 0, waiters: [], asking: false };
      this.accounts.set(accountId, state);
    }
    state.limit = limit;
    if (state.next < state.end && state.waiters.length === 0) {
      state.next += 1;
      return Promise.resolve(state.next);
    }
    const waiting = state;
    return new Promise((resolve, reject) => {
      waiting.waiters.push({ resolve, reject });
      this.due.add(waiting);
      this.schedule();
    });
  }

  /**
   * The shared count less the tickets this instance leased and has not handed out yet: exact
   * with one instance; with several, the spares the others hold are counted as used.
   */
  async used(accountId: number, windowStart: number): Promise<number> {
    const row = await this.db
      .selectFrom('rate_counters')
      .select('count')
      .where('account_id', '=', accountId)
      .where('window_start', '=', windowStart)
      .executeTakeFirst();
    const state = this.accounts.get(accountId);
    const unused = state && state.windowStart === windowStart ? Math.max(state.end - state.next, 0) : 0;
    return Math.max(Number(row?.count ?? 0) - unused, 0);
  }

  async prune(before: number): Promise<void> {
    for (const [accountId, state] of this.accounts) if (state.windowStart < before) this.accounts.delete(accountId);
    await this.db.deleteFrom('rate_counters').where('window_start', '<', before).execute();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (const state of this.due) {
        // One in flight per window; the rest wait for it (and then take its spare tickets first).
        if (state.asking) continue;
        this.due.delete(state);
        if (state.waiters.length > 0) this.lease(state);
      }
    });
  }

  private lease(state: AccountWindow): void {
    const { accountId } = state;
    const waiters = state.waiters.splice(0);
    // Tickets still held go first, in order; the rest come from a new block.
    while (waiters.length > 0 && state.next < state.end) {
      state.next += 1;
      waiters.shift()!.resolve(state.next);
    }
    if (waiters.length === 0) return;
    const now = performance.now();
    const wanted = state.grantedAt > 0 && now - state.grantedAt < GROW_WITHIN_MS ? Math.min(Math.max(state.spare * 2, 1), MAX_LEASE) : 0;
    const spare = Math.min(wanted, Math.max(0, Math.floor((state.limit - state.known) * FREE_SHARE)));
    const size = waiters.length + spare;
    state.asking = true;
    // A quota count need not survive a crash: this statement's commit does not wait for the WAL
    // flush (synchronous_commit off for its own implicit transaction only).
    sql<{ count: number }>`with s as (select set_config('synchronous_commit', 'off', true))
      insert into rate_counters (account_id, window_start, count) select ${accountId}, ${state.windowStart}, ${size} from s
      on conflict (account_id, window_start) do update set count = rate_counters.count + excluded.count
      returning count`
      .execute(this.db)
      .then(
        (result) => {
          const count = Number(result.rows[0]?.count);
          const first = count - size;
          waiters.forEach((w, i) => w.resolve(first + 1 + i));
          if (this.accounts.get(accountId) === state) {
            state.next = first + waiters.length;
            state.end = count;
            state.spare = spare;
            state.grantedAt = performance.now();
            state.known = count;
          }
        },
        (error: unknown) => waiters.forEach((w) => w.reject(error)),
      )
      .finally(() => {
        state.asking = false;
        if (state.waiters.length > 0) this.schedule();
        else this.due.delete(state);
      });
  }
}
