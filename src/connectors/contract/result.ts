/**
 * What a call to a platform gives back. Expected platform failures (refusals, rate limits,
 * outages, timeouts) are values, never throws, so the caller decides: answer 502, keep the
 * message as failed, or let the send job try again later.
 */
export type PlatformFailure = {
  ok: false;
  /** Whether trying again later may succeed (platform down, rate limited). */
  retryable: boolean;
  /** Platform's own error code or a short name for it. */
  code: string;
  message: string;
  /** For credential checks: the request field the platform refused. */
  field?: string;
  /** When the platform said when to try again (a rate limit's `retry_after`, a `Retry-After` header): wait at least this long. */
  retryAfterMs?: number;
};

export type PlatformResult<T> = { ok: true; value: T } | PlatformFailure;
