import { ReceiverLimit, type AnswerSignal } from './receiver-limit.js';

/**
 * The webhook calls of one worker, shared fairly. At most `total` calls in flight, `perEndpoint`
 * to one receiver (a URL origin: scheme, host and port) and `perAccount` for one account. Within
 * `perEndpoint`, each receiver's calls at once follow what its answers show (receiver-limit.ts):
 * a slow or failing receiver gets fewer calls and holds fewer rows, a healthy one up to the cap. A
 * worker also holds claimed rows waiting for a slot: up to two batches per endpoint (it claims
 * the next batch when one is left, so a fast receiver keeps its slots busy while the next claim
 * is on its way), and an account at most its share of all it may hold.
 *
 * Accounts take turns for each free slot, and within an account its lanes (the rows of one
 * channel to one endpoint) take turns. So a slow or hostile receiver only ever occupies its own
 * endpoint's slots, and an account with many of them at most its account's share: the other
 * accounts keep the rest of the slots and of the held rows.
 */
interface Counts {
  active: number;
  held: number;
}

interface Account extends Counts {
  /** Lanes with waiting deliveries, in turn order. */
  ready: Set<string>;
}

interface Lane<D> {
  endpoint: string;
  account: number;
  waiting: D[];
}

/** A started webhook delivery; hand it back to `finish` when its call ended. */
export interface Ticket<D> {
  delivery: D;
  endpoint: string;
  account: number;
}

/** Receivers whose learned limit is kept; beyond that the least recently added is forgotten. */
const REMEMBERED_RECEIVERS = 10_000;

export class EndpointSlots<D> {
  private readonly lanes = new Map<string, Lane<D>>();
  private readonly limits = new Map<string, ReceiverLimit>();
  private readonly byEndpoint = new Map<string, Counts>();
  private readonly byAccount = new Map<number, Account>();
  /** Accounts with waiting deliveries, in turn order. */
  private readonly ready = new Set<number>();
  private activeTotal = 0;
  private heldTotal = 0;
  /** Calls in flight for one account. */
  readonly perAccount: number;
  /** Rows held in all (running and waiting). */
  readonly holdTotal: number;
  /** Rows one account may hold: its share of `holdTotal`, and at least what one endpoint may hold. */
  readonly holdPerAccount: number;

  constructor(
    readonly total: number,
    readonly perEndpoint: number,
    /** Rows one claim may bring for one channel (and for one account when others share the claim). */
    readonly batch: number = perEndpoint,
    perAccount: number = total,
  ) {
    this.perAccount = Math.max(1, Math.min(perAccount, total));
    // Eight times the calls it may make at once (and at least two endpoints' worth), so endpoints
    // that hold rows while they answer slowly leave room for the others.
    const base = Math.max(total * 8, this.holdPerEndpoint * 2);
    if (this.perAccount >= total) {
      this.holdTotal = base;
      this.holdPerAccount = base;
    } else {
      // The account's share as of its calls; at least one stuck endpoint's rows and a batch for
      // its other channels, and always an endpoint's worth left for the other accounts.
      this.holdPerAccount = Math.max(Math.floor((base * this.perAccount) / total), this.holdPerEndpoint + batch);
      this.holdTotal = Math.max(base, this.holdPerAccount + this.holdPerEndpoint);
    }
  }

  /** The most rows one endpoint may hold, running and waiting, at the cap. */
  get holdPerEndpoint(): number {
    return this.perEndpoint + 2 * this.batch;
  }

  /** The learned limit of a receiver (made on first use). */
  private limitOf(endpoint: string): ReceiverLimit {
    let limit = this.limits.get(endpoint);
    if (!limit) {
      limit = new ReceiverLimit(this.perEndpoint);
      this.limits.set(endpoint, limit);
      if (this.limits.size > REMEMBERED_RECEIVERS) this.limits.delete(this.limits.keys().next().value!);
    }
    return limit;
  }

  /** Calls `endpoint` may have at once now. */
  limit(endpoint: string): number {
    return this.limitOf(endpoint).current;
  }

  /**
   * The rows one batch of `endpoint` brings and the most it may hold, scaled to its current limit:
   * a receiver cut to fewer calls holds fewer rows, so none waits past its lease behind slow calls.
   */
  private holdOf(endpoint: string): { hold: number; batch: number } {
    const limit = this.limit(endpoint);
    if (limit >= this.perEndpoint) return { hold: this.holdPerEndpoint, batch: this.batch };
    const batch = Math.max(1, Math.ceil((this.batch * limit) / this.perEndpoint));
    return { hold: limit + 2 * batch, batch };
  }

  /** What a call to `endpoint` ended with (before `finish`): feeds its learned limit. */
  observe(ticket: Ticket<D>, now: number, latencyMs: number, signal: AnswerSignal): void {
    const active = this.byEndpoint.get(ticket.endpoint)?.active ?? 1;
    this.limitOf(ticket.endpoint).observe(now, latencyMs, signal, active);
  }

  /** How many more rows the worker may claim. */
  room(): number {
    return Math.max(0, this.holdTotal - this.heldTotal);
  }

  held(endpoint: string): number {
    return this.byEndpoint.get(endpoint)?.held ?? 0;
  }

  heldByAccount(account: number): number {
    return this.byAccount.get(account)?.held ?? 0;
  }

  /** Whether an endpoint can take another full batch without going over what it may hold. */
  canTakeBatch(endpoint: string): boolean {
    const { hold, batch } = this.holdOf(endpoint);
    return this.held(endpoint) <= hold - batch;
  }

  /** Whether an account can take another full batch without going over its share. */
  accountCanTakeBatch(account: number): boolean {
    return this.heldByAccount(account) <= this.holdPerAccount - this.batch;
  }

  /** Endpoints with deliveries running or waiting. */
  endpoints(): IterableIterator<string> {
    return this.byEndpoint.keys();
  }

  /** Accounts with deliveries running or waiting. */
  accounts(): IterableIterator<number> {
    return this.byAccount.keys();
  }

  /**
   * Holds a delivery of `account` for `endpoint`, behind the others of its lane (`lane` names it,
   * e.g. the channel and the endpoint); false when the endpoint or the account holds all it may.
   */
  add(endpoint: string, account: number, lane: string, delivery: D): boolean {
    let e = this.byEndpoint.get(endpoint);
    let a = this.byAccount.get(account);
    if ((e && e.held >= this.holdOf(endpoint).hold) || (a && a.held >= this.holdPerAccount)) return false;
    if (!e) {
      e = { active: 0, held: 0 };
      this.byEndpoint.set(endpoint, e);
    }
    if (!a) {
      a = { active: 0, held: 0, ready: new Set() };
      this.byAccount.set(account, a);
    }
    let l = this.lanes.get(lane);
    if (!l) {
      l = { endpoint, account, waiting: [] };
      this.lanes.set(lane, l);
    }
    l.waiting.push(delivery);
    e.held += 1;
    a.held += 1;
    this.heldTotal += 1;
    a.ready.add(lane);
    this.ready.add(account);
    return true;
  }

  /** The next delivery that may start now, accounts and their lanes taking turns; null when none may. */
  take(): Ticket<D> | null {
    if (this.activeTotal >= this.total) return null;
    for (const account of this.ready) {
      const a = this.byAccount.get(account);
      if (!a || a.active >= this.perAccount) continue;
      for (const key of a.ready) {
        const lane = this.lanes.get(key);
        const e = lane && this.byEndpoint.get(lane.endpoint);
        if (!lane || !e || e.active >= this.limit(lane.endpoint)) continue;
        const delivery = lane.waiting.shift() as D;
        a.ready.delete(key);
        if (lane.waiting.length > 0)
          a.ready.add(key); // back of the line
        else this.lanes.delete(key);
        this.ready.delete(account);
        if (a.ready.size > 0) this.ready.add(account);
        e.active += 1;
        a.active += 1;
        this.activeTotal += 1;
        return { delivery, endpoint: lane.endpoint, account };
      }
    }
    return null;
  }

  /** A started delivery ended. */
  finish(ticket: Ticket<D>): void {
    const e = this.byEndpoint.get(ticket.endpoint);
    const a = this.byAccount.get(ticket.account);
    if (!e || !a || e.active === 0 || a.active === 0) return;
    e.active -= 1;
    e.held -= 1;
    a.active -= 1;
    a.held -= 1;
    this.activeTotal -= 1;
    this.heldTotal -= 1;
    if (e.held === 0) this.byEndpoint.delete(ticket.endpoint);
    if (a.held === 0) this.byAccount.delete(ticket.account);
  }

  /** Removes and returns every delivery not started yet (shutdown). */
  drainWaiting(): D[] {
    const out: D[] = [];
    for (const lane of this.lanes.values()) {
      out.push(...lane.waiting);
      const n = lane.waiting.length;
      const e = this.byEndpoint.get(lane.endpoint)!;
      const a = this.byAccount.get(lane.account)!;
      e.held -= n;
      a.held -= n;
      this.heldTotal -= n;
      if (e.held === 0) this.byEndpoint.delete(lane.endpoint);
      if (a.held === 0) this.byAccount.delete(lane.account);
    }
    this.lanes.clear();
    for (const a of this.byAccount.values()) a.ready.clear();
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
