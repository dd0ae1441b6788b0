/**
 * Token buckets by key (a client address, a contact): each holds up to `capacity` tokens and
 * gains `capacity` back over `refillMs`, so "20 a minute with a burst of 60" is capacity 60
 * refilled at 20 per 60,000 ms. A bucket that has refilled completely is forgotten, which is the
 * same as a fresh one, so memory follows the keys active lately rather than every key ever seen.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;
  private lastPrune: number;

  constructor(
    private readonly capacity: number,
    refillAmount: number,
    refillMs: number,
    private readonly now: () => number,
  ) {
    this.perMs = refillAmount / refillMs;
    this.lastPrune = now();
  }

  private level(key: string, t: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.capacity;
    return Math.min(this.capacity, bucket.tokens + Math.max(0, t - bucket.at) * this.perMs);
  }

  /** Takes `amount` tokens; false, taking nothing, when the bucket holds fewer. */
  take(key: string, amount = 1): boolean {
    const t = this.now();
    this.prune(t);
    const level = this.level(key, t);
    if (level < amount) return false;
    this.buckets.set(key, { tokens: level - amount, at: t });
    return true;
  }

  /** Gives back what was taken for work that did not happen. */
  refund(key: string, amount: number): void {
    const t = this.now();
    this.buckets.set(key, { tokens: Math.min(this.capacity, this.level(key, t) + amount), at: t });
  }

  /** Milliseconds until `amount` tokens are there (Infinity when more than the bucket holds). */
  waitMs(key: string, amount = 1): number {
    if (amount > this.capacity) return Infinity;
    const missing = amount - this.level(key, this.now());
    return missing <= 0 ? 0 : Math.ceil(missing / this.perMs);
  }

  private prune(t: number): void {
    if (t - this.lastPrune < 60_000) return;
    this.lastPrune = t;
    for (const [key] of this.buckets) if (this.level(key, t) >= this.capacity) this.buckets.delete(key);
  }
}
