// Faults injected through the control API. Each platform request consumes the first matching fault;
// the platform module turns the fault into its own error shape.

/**
 * `slow_answer`: the request is carried out at once and its answer held back for `delay_ms`
 * (a platform that took the message but answers late), for stand-ins that support it.
 */
export type FaultKind = 'rate_limit' | 'server_error' | 'timeout' | 'error' | 'slow_answer';

export interface Fault {
  id: number;
  kind: FaultKind;
  /** Endpoint name the fault applies to ("*" = every platform endpoint). */
  endpoint: string;
  /** How many requests it still affects. */
  remaining: number;
  /** For timeout: how long to hang before answering normally (or, with `then_fail`, with a 5xx). */
  delayMs: number;
  /** Platform-specific error code (rate-limit code, error subcode, status code...). */
  code?: number;
  subcode?: number;
  status?: number;
  retryAfter?: number;
  message?: string;
}

export interface FaultInput {
  kind?: unknown;
  endpoint?: unknown;
  count?: unknown;
  delay_ms?: unknown;
  code?: unknown;
  subcode?: unknown;
  status?: unknown;
  retry_after?: unknown;
  message?: unknown;
}

const KINDS: readonly FaultKind[] = ['rate_limit', 'server_error', 'timeout', 'error', 'slow_answer'];
const MAX_DELAY_MS = 10 * 60 * 1000;
const MAX_COUNT = 10_000;

export class FaultQueue {
  private faults: Fault[] = [];
  private nextId = 1;

  add(input: FaultInput): Fault | string {
    const kind = input.kind;
    if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) {
      return `kind must be one of ${KINDS.join(', ')}`;
    }
    const count = input.count === undefined ? 1 : Number(input.count);
    if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) return `count must be an integer 1..${MAX_COUNT}`;
    const delay = input.delay_ms === undefined ? (kind === 'timeout' || kind === 'slow_answer' ? 30_000 : 0) : Number(input.delay_ms);
    if (!Number.isFinite(delay) || delay < 0 || delay > MAX_DELAY_MS) return `delay_ms must be 0..${MAX_DELAY_MS}`;
    const fault: Fault = {
      id: this.nextId++,
      kind: kind as FaultKind,
      endpoint: typeof input.endpoint === 'string' && input.endpoint !== '' ? input.endpoint.toLowerCase() : '*',
      remaining: count,
      delayMs: delay,
    };
    if (input.code !== undefined) fault.code = Number(input.code);
    if (input.subcode !== undefined) fault.subcode = Number(input.subcode);
    if (input.status !== undefined) fault.status = Number(input.status);
    if (input.retry_after !== undefined) fault.retryAfter = Number(input.retry_after);
    if (typeof input.message === 'string') fault.message = input.message;
    this.faults.push(fault);
    return fault;
  }

  /** Returns and consumes the first fault matching this endpoint. */
  take(endpoint: string): Fault | undefined {
    const name = endpoint.toLowerCase();
    const fault = this.faults.find((f) => f.endpoint === '*' || f.endpoint === name);
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return { ...fault };
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.faults = [];
  }
}
