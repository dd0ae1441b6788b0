import type { Clock } from '../lib/clock.js';
import type { Admission } from './task.js';

/** The rate an item is started at: per key (e.g. its channel), in items per second. */
export interface KeyRate {
  key: number;
  perSecond: number;
}

export interface RateAdmissionOptions<T> {
  /** Items running at once, whatever their keys. */
  concurrency: number;
  /** Items held at most, running and waiting: a claim brings no more. */
  capacity: number;
  /** The item's key and rate; null: started as soon as there is room (no rate). */
  rateOf(item: T): KeyRate | null;
  /** Token times (the injected clock, so tests drive the rate). */
  clock: Clock;
  /** Seconds of its rate a key may hold waiting; more are given back and left out of claims. Default 2. */
  holdSeconds?: number;
  /** Longest wait before held items are looked at again when none may start (ms). Default 250. */
  recheckMs?: number;
}

interface Lane<T> {
  key: number;
  items: T[];
  perSecond: number;
  /** Token bucket: up to one second of the rate, refilled continuously. */
  tokens: number;
  at: number;
  /** No item of the key starts before this time (a platform asked it to wait). */
  pausedUntil: number;
}

/**
 * Admission by rate per key: each key (a channel) starts its items at its own rate (a token
 * bucket holding one second of it), the keys that have items take turns, and items without a
 * rate start at once. A key holds at most `holdSeconds` of its rate waiting: a claim brings no
 * more of it (`saturated()` names the keys the claim should leave out), so a burst to one key
 * stays in the store and never fills the worker's room that other keys need. `pause` stops one
 * key for a while (a platform's 429 and its Retry-After) without slowing the others.
 */
export class RateAdmission<T> implements Admission<T, T> {
  private readonly free: T[] = [];
  private readonly lanes = new Map<number, Lane<T>>();
  /** Lanes with waiting items, in turn order. */
  private readonly turns: Lane<T>[] = [];
  private cursor = 0;
  private waiting = 0;
  private running = 0;
  private timer: NodeJS.Timeout | null = null;
  private ready: (() => void) | null = null;
  private skipped: number[] = [];
  /** Set by the source after a claim that filled its limit: more work is due. */
  more = false;

  constructor(private readonly o: RateAdmissionOptions<T>) {}

  room(): number {
    return Math.max(0, this.o.capacity - this.held);
  }

  /** Keys whose waiting items cover their rate for a while (or that are paused): leave them out of the next claim. */
  saturated(): number[] {
    const now = this.o.clock.now();
    this.skipped = this.turns.filter((lane) => lane.pausedUntil > now || lane.items.length * 2 >= this.capOf(lane)).map((lane) => lane.key);
    return this.skipped;
  }

  wantsClaim(): boolean {
    if (this.room() === 0) return false;
    // More is due: claimed once a batch's worth of room is free, not after every item that ends
    // (each claim is a write); the items still held keep the running slots busy meanwhile.
    if (this.more && this.room() >= Math.min(this.o.concurrency, Math.ceil(this.o.capacity / 4))) return true;
    // A key left out of the last claim has room again: its next items may be claimed.
    const now = this.o.clock.now();
    return this.skipped.some((key) => {
      const lane = this.lanes.get(key);
      return !lane || (lane.pausedUntil <= now && lane.items.length * 2 < this.capOf(lane));
    });
  }

  hold(item: T): boolean {
    if (this.held >= this.o.capacity) return false;
    const rate = this.o.rateOf(item);
    if (!rate) {
      this.free.push(item);
      this.waiting += 1;
      return true;
    }
    let lane = this.lanes.get(rate.key);
    if (!lane) {
      this.prune();
      lane = { key: rate.key, items: [], perSecond: rate.perSecond, tokens: burstOf(rate.perSecond), at: this.o.clock.now(), pausedUntil: 0 };
      this.lanes.set(rate.key, lane);
    }
    // The rate of the latest item counts (a channel's rate changed meanwhile).
    lane.perSecond = rate.perSecond;
    if (lane.items.length >= this.capOf(lane)) return false;
    if (lane.items.length === 0) this.turns.push(lane);
    lane.items.push(item);
    this.waiting += 1;
    return true;
  }

  next(): T | null {
    if (this.running >= this.o.concurrency) return null;
    const item = this.free.shift() ?? this.nextByRate();
    if (item === undefined) return null;
    this.waiting -= 1;
    this.running += 1;
    return item;
  }

  private nextByRate(): T | undefined {
    if (this.turns.length === 0) return undefined;
    const now = this.o.clock.now();
    for (let i = 0; i < this.turns.length; i++) {
      const index = (this.cursor + i) % this.turns.length;
      const lane = this.turns[index]!;
      refill(lane, now);
      if (lane.pausedUntil > now || lane.tokens < 1) continue;
      lane.tokens -= 1;
      const item = lane.items.shift() as T;
      if (lane.items.length === 0) {
        this.turns.splice(index, 1);
        this.cursor = index;
      } else this.cursor = index + 1;
      if (this.cursor >= this.turns.length) this.cursor = 0;
      return item;
    }
    this.recheckLater(now);
    return undefined;
  }

  /** No key may start now: look again when the first one may (at most `recheckMs` later, the clock may jump). */
  private recheckLater(now: number): void {
    if (this.timer) return;
    let wait = Infinity;
    for (const lane of this.turns) {
      const ms = lane.pausedUntil > now ? lane.pausedUntil - now : ((1 - lane.tokens) * 1000) / lane.perSecond;
      wait = Math.min(wait, ms);
    }
    const delay = Math.max(1, Math.min(Math.ceil(wait), this.o.recheckMs ?? 250));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.ready?.();
    }, delay);
    this.timer.unref();
  }

  /**
   * The key's platform asked to wait: none of its items starts for `ms`; then one starts at once
   * (the wait was honoured exactly) and the rest follow at the key's rate. Left with no token, the
   * first item would wait for time to pass after the pause, which an injected clock that stops at
   * the pause's end never lets happen.
   */
  pause(key: number, ms: number): void {
    const lane = this.lanes.get(key);
    if (!lane) return;
    const now = this.o.clock.now();
    lane.pausedUntil = Math.max(lane.pausedUntil, now + ms);
    lane.tokens = 1;
    lane.at = lane.pausedUntil;
  }

  finish(): void {
    this.running -= 1;
  }

  onReady(listener: () => void): void {
    this.ready = listener;
  }

  drainWaiting(): T[] {
    const out = this.free.splice(0);
    for (const lane of this.turns) out.push(...lane.items.splice(0));
    this.turns.length = 0;
    this.cursor = 0;
    this.waiting = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    return out;
  }

  get active(): number {
    return this.running;
  }

  get held(): number {
    return this.running + this.waiting;
  }

  private capOf(lane: Lane<T>): number {
    return Math.max(1, Math.min(Math.ceil(lane.perSecond * (this.o.holdSeconds ?? 2)), Math.floor(this.o.capacity / 2)));
  }

  /** Forgets idle keys whose bucket is full again (the same as a new one), so memory follows the keys active lately. */
  private prune(): void {
    if (this.lanes.size < 1024) return;
    const now = this.o.clock.now();
    for (const [key, lane] of this.lanes) {
      if (lane.items.length > 0 || lane.pausedUntil > now) continue;
      refill(lane, now);
      if (lane.tokens >= burstOf(lane.perSecond)) this.lanes.delete(key);
    }
  }
}

function burstOf(perSecond: number): number {
  return Math.max(1, perSecond);
}

function refill(lane: { tokens: number; at: number; perSecond: number }, now: number): void {
  if (now <= lane.at) return;
  lane.tokens = Math.min(burstOf(lane.perSecond), lane.tokens + ((now - lane.at) * lane.perSecond) / 1000);
  lane.at = now;
}
