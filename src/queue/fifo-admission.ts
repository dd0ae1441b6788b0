import type { Admission } from './task.js';

/**
 * The plain admission: up to `concurrency` items running, started in the order claimed; a claim
 * brings at most what can start. `more` (set by the source after a claim that filled its limit)
 * asks for the next claim as soon as an item ends.
 */
export class FifoAdmission<T> implements Admission<T, T> {
  private readonly waiting: T[] = [];
  private running = 0;
  more = false;

  constructor(readonly concurrency: number) {}

  room(): number {
    return Math.max(0, this.concurrency - this.running - this.waiting.length);
  }

  wantsClaim(): boolean {
    return this.more && this.room() > 0;
  }

  hold(item: T): boolean {
    if (this.room() === 0) return false;
    this.waiting.push(item);
    return true;
  }

  next(): T | null {
    if (this.running >= this.concurrency || this.waiting.length === 0) return null;
    this.running += 1;
    return this.waiting.shift() as T;
  }

  finish(): void {
    this.running -= 1;
  }

  drainWaiting(): T[] {
    return this.waiting.splice(0);
  }

  get active(): number {
    return this.running;
  }

  get held(): number {
    return this.running + this.waiting.length;
  }
}
