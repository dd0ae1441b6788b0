import type { DeliveryStatus } from '../store/delivery-queue.js';

/**
 * The retry rule, as pure functions. A 2xx ends a delivery; anything else (another status, a
 * refused connection, no answer in time) is tried again after the next delay of the schedule,
 * counted from the end of the failed try. After the last delay's try fails, it is given up.
 * With the default schedule (60, 300, 1200, 3600, 10800, 28800 s) that is 7 tries in all.
 *
 * Never earlier than the schedule: jitter only adds to a delay (deliveries that failed together,
 * when a receiver went down, do not all come back in the same second), and a receiver's
 * Retry-After only lengthens it, up to the schedule's longest delay, so a receiver cannot park
 * its deliveries for days. Neither adds a try.
 */
export function retryDelayMs(failedTries: number, scheduleSeconds: readonly number[]): number | null {
  if (failedTries < 1) return 0;
  const seconds = scheduleSeconds[failedTries - 1];
  return seconds === undefined ? null : Math.round(seconds * 1000);
}

export function isSuccess(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}

export interface NextStep {
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
}

export interface RetryWait {
  /** What the receiver's Retry-After asked for, in ms from the end of the try. */
  retryAfterMs?: number | undefined;
  /** The most jitter adds, as a fraction of the scheduled delay (0.1: up to a tenth more). */
  jitter?: number;
  /** In [0, 1); tests pass a fixed one. */
  random?: () => number;
}

/** The wait after a failed try: the scheduled delay, plus jitter, at least the Retry-After (capped). */
export function waitMs(scheduledMs: number, scheduleSeconds: readonly number[], wait: RetryWait): number {
  const jittered = scheduledMs + Math.floor(scheduledMs * (wait.jitter ?? 0) * (wait.random ?? Math.random)());
  if (wait.retryAfterMs === undefined) return jittered;
  const longest = Math.max(...scheduleSeconds) * 1000;
  return Math.max(jittered, Math.min(wait.retryAfterMs, longest));
}

/** Where a delivery goes after one more try that ended at `now`. */
export function nextStep(triesBefore: number, statusCode: number | null, now: number, scheduleSeconds: readonly number[], wait: RetryWait = {}): NextStep {
  const attempts = triesBefore + 1;
  if (isSuccess(statusCode)) return { status: 'delivered', attempts, nextAttemptAt: now };
  const delay = retryDelayMs(attempts, scheduleSeconds);
  if (delay === null) return { status: 'failed', attempts, nextAttemptAt: now };
  return { status: 'pending', attempts, nextAttemptAt: now + waitMs(delay, scheduleSeconds, wait) };
}
