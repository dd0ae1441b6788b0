import type { DeliveryStatus } from '../store/delivery-queue.js';

/**
 * The retry rule, as pure functions. A 2xx ends a delivery; anything else (another status, a
 * refused connection, no answer in time) is tried again after the next delay of the schedule,
 * counted from the end of the failed try. After the last delay's try fails, it is given up.
 * With the default schedule (60, 300, 1200, 3600, 10800, 28800 s) that is 7 tries in all.
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

/** Where a delivery goes after one more try that ended at `now`. */
export function nextStep(triesBefore: number, statusCode: number | null, now: number, scheduleSeconds: readonly number[]): NextStep {
  const attempts = triesBefore + 1;
  if (isSuccess(statusCode)) return { status: 'delivered', attempts, nextAttemptAt: now };
  const delay = retryDelayMs(attempts, scheduleSeconds);
  if (delay === null) return { status: 'failed', attempts, nextAttemptAt: now };
  return { status: 'pending', attempts, nextAttemptAt: now + delay };
}
