/**
 * A `Retry-After` header (RFC 9110 §10.2.3: delay-seconds, or an HTTP date) as milliseconds from
 * `now`; undefined when absent or unreadable, 0 for a date already past.
 */
export function retryAfterMs(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date (any of the three forms) starts with its day name; "-5" or "1.5" would parse as some date.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
