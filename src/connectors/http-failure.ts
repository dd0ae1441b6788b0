import type { PlatformFailure } from './contract/result.js';
import type { HttpAnswer } from './http.js';
import { retryAfterMs } from '../lib/retry-after.js';

/**
 * One reading, for every connector, of a platform's HTTP answer that is not a success: 429 is
 * `rate_limited` and waits for its `Retry-After`; 408 and 5xx pass with time; any other status
 * is a refusal that trying again will not change. Network failures and deadlines never get here:
 * httpCall answers them as `unreachable` and `timeout` (both retryable). A connector reads its
 * platform's own error body first and passes its code and words; it refines only the refusals
 * its platform tells apart.
 */

/** Whether trying again later may succeed: a rate limit, a request timeout or a server error. */
export function retryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

/** What the platform said in its error body, when it said anything. */
export interface PlatformSaid {
  /** The platform's own error code; the HTTP status when absent. Not used for 429 (`rate_limited`). */
  code?: string | number | null;
  message?: string;
  /** A wait the platform gave in its body (seconds in a JSON field, a date in the text): wins over the header. */
  retryAfterMs?: number;
}

/** A platform's non-success HTTP answer as a failure value (the headers are read only for a 429's Retry-After). */
export function httpFailure(answer: Pick<HttpAnswer, 'status'> & Partial<Pick<HttpAnswer, 'headers'>>, now: number, said: PlatformSaid = {}): PlatformFailure {
  const status = answer.status;
  if (status === 429) {
    const after = said.retryAfterMs ?? retryAfterMs(answer.headers?.get('retry-after'), now);
    const message = said.message ?? 'The platform asked to slow down (HTTP 429).';
    return { ok: false, retryable: true, code: 'rate_limited', message, ...(after === undefined ? {} : { retryAfterMs: after }) };
  }
  const code = said.code === undefined || said.code === null ? String(status) : String(said.code);
  return { ok: false, retryable: retryableStatus(status), code, message: said.message ?? `The platform answered HTTP ${status}.` };
}
