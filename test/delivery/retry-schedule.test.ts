import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isSuccess, nextStep, retryDelayMs } from '../../src/delivery/retry-schedule.js';
import { loadConfig } from '../../src/config.js';

const DEFAULT = loadConfig({ DATABASE_URL: 'postgres://unused/x', ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') }).webhook.retryScheduleSeconds;

describe('Retry schedule', () => {
  test('the default schedule is 1, 5, 20, 60, 180 and 480 minutes', () => {
    assert.deepEqual(DEFAULT, [60, 300, 1200, 3600, 10800, 28800]);
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n, DEFAULT)),
      [1, 5, 20, 60, 180, 480].map((m) => m * 60_000),
    );
  });

  test('after the seventh failed try there is no further one', () => {
    assert.equal(retryDelayMs(6, DEFAULT), 480 * 60_000);
    assert.equal(retryDelayMs(7, DEFAULT), null);
    assert.equal(nextStep(5, 500, 1000, DEFAULT).status, 'pending');
    const last = nextStep(6, 500, 1000, DEFAULT);
    assert.deepEqual(last, { status: 'failed', attempts: 7, nextAttemptAt: 1000 });
  });

  test('a failed try is retried after the next delay, counted from its end', () => {
    assert.deepEqual(nextStep(0, 503, 10_000, DEFAULT), { status: 'pending', attempts: 1, nextAttemptAt: 70_000 });
    assert.deepEqual(nextStep(2, null, 10_000, DEFAULT), { status: 'pending', attempts: 3, nextAttemptAt: 10_000 + 1_200_000 });
  });

  test('only 200..299 is success', () => {
    assert.deepEqual([199, 200, 204, 299, 300, 404, 500].map(isSuccess), [false, true, true, true, false, false, false]);
    assert.equal(isSuccess(null), false);
    assert.deepEqual(nextStep(3, 204, 5, DEFAULT), { status: 'delivered', attempts: 4, nextAttemptAt: 5 });
  });

  test('a configured schedule sets delays in seconds (fractions allowed) and the number of tries', () => {
    const schedule = loadConfig({ DATABASE_URL: 'postgres://unused/x', ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'), WEBHOOK_RETRY_SCHEDULE: '0.5,2' })
      .webhook.retryScheduleSeconds;
    assert.deepEqual(
      [1, 2, 3].map((n) => retryDelayMs(n, schedule)),
      [500, 2000, null],
    );
  });
});
