/**
 * Correlation ids: one id follows a message from the API request that sent it through its send
 * job and platform call to its webhook deliveries (their `X-Parley-Correlation-Id` header), so one
 * message's path can be found in the logs. A request's id is its correlation id: the caller's own
 * `X-Request-Id` or `X-Correlation-Id` when well-formed, else one the service makes.
 */

/** The header a webhook call carries the id in (docs/webhooks.md). */
export const CORRELATION_HEADER = 'X-Parley-Correlation-Id';

/** Letters, digits and `-_.:`, at most 64 (a UUID or a proxy's trace id fits; a log line stays small): nothing a log reader or a header could misread. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,64}$/;

/** The caller's id when it is well-formed; anything else (too long, other characters, repeated) is ignored. */
export function callerCorrelationId(value: string | string[] | undefined): string | null {
  return typeof value === 'string' && WELL_FORMED.test(value) ? value : null;
}

/** A correlation id read back from a row or payload: kept only when well-formed (rows written before it existed have none). */
export function storedCorrelationId(value: unknown): string | null {
  return typeof value === 'string' && WELL_FORMED.test(value) ? value : null;
}
