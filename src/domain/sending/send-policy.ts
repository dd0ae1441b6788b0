/**
 * How long and how often a send job tries (documented in docs/connectors.md, "The send worker"):
 * - a message not sent within 24 hours of its Send Message fails with code 4 (the code that says
 *   "not delivered within 24 hours"); the platform is also given what is left of the 24 hours as
 *   the message's own validity, so it never delivers a stale message either;
 * - at most 20 attempts: retryable failures wait 10 s, doubling up to an hour, with jitter (each
 *   wait drawn between half and all of it, so jobs that failed together do not come back
 *   together), which spreads the 20 attempts over about 12 hours of an outage;
 * - a platform that says when to try again (Retry-After) is waited for exactly that long, plus
 *   up to a tenth for the same reason.
 */
export const SEND_EXPIRY_MS = 24 * 60 * 60_000;
export const SEND_MAX_ATTEMPTS = 20;
const FIRST_RETRY_MS = 10_000;
const LONGEST_RETRY_MS = 60 * 60_000;

/** The wait before the attempt after `attempts` failed ones; `random` in [0, 1). */
export function sendRetryDelayMs(attempts: number, retryAfterMs: number | undefined, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.ceil(retryAfterMs * (1 + random() / 10));
  const full = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), LONGEST_RETRY_MS);
  return Math.ceil(full / 2 + (full / 2) * random());
}
