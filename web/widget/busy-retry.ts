/**
 * When to connect again after a temporary refusal (connection_rejected code 4: too many
 * connections or new sessions from the client's address). The first retry waits what the server
 * names (retry_after), or BUSY_RETRY_MS when it names nothing; each further refusal in a row
 * doubles the floor, up to BUSY_RETRY_MAX_MS. A jitter of up to 30% spreads the tabs and visitors
 * refused together, so they do not all come back in the same second.
 */
export const BUSY_RETRY_MS = 2000;
export const BUSY_RETRY_MAX_MS = 60_000;
/** A longer wait the server names is honoured up to this, so a page is not silent for good. */
const SERVER_WAIT_MAX_MS = 10 * 60_000;
const JITTER = 0.3;

/** Milliseconds to wait after the `refusals`-th temporary refusal in a row (1 for the first). */
export function busyRetryDelayMs(refusals: number, retryAfterSeconds: unknown, random: () => number = Math.random): number {
  const asked =
    typeof retryAfterSeconds === 'number' && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0
      ? Math.min(retryAfterSeconds * 1000, SERVER_WAIT_MAX_MS)
      : null;
  const repeats = Math.max(0, Math.min(refusals - 1, 16));
  // With a named wait, the first retry comes right after it; backoff only grows on repeats.
  const floor =
    asked === null
      ? Math.min(BUSY_RETRY_MS * 2 ** repeats, BUSY_RETRY_MAX_MS)
      : repeats === 0
        ? 0
        : Math.min(BUSY_RETRY_MS * 2 ** (repeats - 1), BUSY_RETRY_MAX_MS);
  const base = Math.max(asked ?? 0, floor);
  return Math.round(base * (1 + random() * JITTER));
}
