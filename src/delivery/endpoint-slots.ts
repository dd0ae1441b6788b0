/**
 * Per-receiver concurrency: at most `perEndpoint` calls in flight to one endpoint (a URL origin:
 * scheme, host and port) and `total` in all. A worker also holds claimed rows waiting for a slot:
 * up to two batches per endpoint, and it claims the next batch when one is left, so a fast
 * receiver keeps its slots busy while the next claim is on its way. Endpoints take turns, so a
 * slow or dead receiver only ever occupies its own slots.
 */
interface Endpoint<J> {
  active: number;
  waiting: J[];
}

export class EndpointSlots<J> {
  private readonly byKey = new Map<string, Endpoint<J>>();
  /** Endpoints with waiting jobs, in turn order. */
  private readonly ready = new Set<string>();
  private activeTotal = 0;
  private heldTotal = 0;

  constructor(
    readonly total: number,
    readonly perEndpoint: number,
    /** Rows one claim may bring for one endpoint. */
    readonly batch: number = perEndpoint,
  ) {}

  /** The most rows one endpoint may hold, running and waiting. */
  get holdPerEndpoint(): number {
    return this.perEndpoint + 2 * this.batch;
  }

  /**
   * How many more rows the worker may claim. It holds up to eight times the calls it may make at
   * once (and at least two endpoints' worth), so endpoints that hold rows while they answer
   * slowly leave room for the others until they also hold every call slot.
   */
  room(): number {
    return Math.max(0, Math.max(this.total * 8, this.holdPerEndpoint * 2) - this.heldTotal);
  }

  held(key: string): number {
    const e = this.byKey.get(key);
    return e ? e.active + e.waiting.length : 0;
  }

  /** Whether an endpoint can take another full batch without going over what it may hold. */
  canTakeBatch(key: string): boolean {
    return this.held(key) <= this.holdPerEndpoint - this.batch;
  }

  /** Endpoints with jobs running or waiting. */
  endpoints(): IterableIterator<string> {
    return this.byKey.keys();
  }

  /** Holds a job for its endpoint; false when the endpoint holds all it may. */
  add(key: string, job: J): boolean {
    let e = this.byKey.get(key);
    if (!e) {
      e = { active: 0, waiting: [] };
      this.byKey.set(key, e);
    }
    if (e.active + e.waiting.length >= this.holdPerEndpoint) return false;
    e.waiting.push(job);
    this.ready.add(key);
    this.heldTotal += 1;
    return true;
  }

  /** The next job that may start now, taking endpoints in turn; null when none may. */
  take(): { key: string; job: J } | null {
    if (this.activeTotal >= this.total) return null;
    for (const key of this.ready) {
      const e = this.byKey.get(key);
      if (!e || e.active >= this.perEndpoint) continue;
      const job = e.waiting.shift();
      this.ready.delete(key);
      if (job === undefined) continue;
      if (e.waiting.length > 0) this.ready.add(key); // back of the line
      e.active += 1;
      this.activeTotal += 1;
      return { key, job };
    }
    return null;
  }

  /** A started job ended. */
  finish(key: string): void {
    const e = this.byKey.get(key);
    if (!e || e.active === 0) return;
    e.active -= 1;
    this.activeTotal -= 1;
    this.heldTotal -= 1;
    if (e.active === 0 && e.waiting.length === 0) this.byKey.delete(key);
  }

  /** Removes and returns every job not started yet (shutdown). */
  drainWaiting(): J[] {
    const out: J[] = [];
    for (const [key, e] of this.byKey) {
      out.push(...e.waiting);
      this.heldTotal -= e.waiting.length;
      e.waiting = [];
      if (e.active === 0) this.byKey.delete(key);
    }
    this.ready.clear();
    return out;
  }

  get active(): number {
    return this.activeTotal;
  }

  get heldCount(): number {
    return this.heldTotal;
  }
}
