/** Time is injected so retry schedules, windows and timestamps can be tested without waiting. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; used by tests and the delivery simulator. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}

let lastMs = Number.NaN;
let lastIso = '';

/** ISO 8601 in UTC. The requests of one batch share their millisecond: the last answer is kept. */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
