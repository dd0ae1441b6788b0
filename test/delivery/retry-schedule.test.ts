import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isSuccess, nextStep, retryDelayMs } from '../../src/delivery/retry-schedule.js';
import { retryAfterMs } from '../../src/lib/retry-after.js';
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

  test('jitter adds up to its fraction of the delay, never less than the schedule', () => {
    const at = (random: number, jitter: number) => nextStep(0, 500, 0, DEFAULT, { jitter, random: () => random }).nextAttemptAt;
    assert.equal(at(0, 0.1), 60_000);
    assert.equal(at(0.5, 0.1), 63_000);
    assert.equal(at(0.999_999, 0.1), 65_999);
    assert.equal(at(0.999_999, 0), 60_000);
    assert.equal(nextStep(5, null, 0, DEFAULT, { jitter: 0.1, random: () => 0.5 }).nextAttemptAt, 480 * 60_000 * 1.05);
    assert.equal(nextStep(6, 500, 7, DEFAULT, { jitter: 0.1, random: () => 0.5 }).status, 'failed', 'jitter adds no try');
  });

  test("a Retry-After lengthens the wait up to the schedule's longest delay, never shortens it, and adds no try", () => {
    const wait = (retryAfter: number, tries = 0) => nextStep(tries, 503, 0, DEFAULT, { retryAfterMs: retryAfter, jitter: 0 }).nextAttemptAt;
    assert.equal(wait(120_000), 120_000);
    assert.equal(wait(1_000), 60_000);
    assert.equal(wait(0), 60_000);
    assert.equal(wait(480 * 60_000), 480 * 60_000);
    assert.equal(wait(480 * 60_000 + 1), 480 * 60_000);
    assert.equal(wait(10 * 60_000, 3), 60 * 60_000, 'the fourth delay is already longer');
    assert.equal(nextStep(6, 503, 0, DEFAULT, { retryAfterMs: 1000 }).status, 'failed');
    assert.equal(nextStep(0, 200, 0, DEFAULT, { retryAfterMs: 99_000 }).nextAttemptAt, 0, 'a 2xx ends it whatever it says');
  });

  test('Retry-After is read as seconds or as an HTTP date', () => {
    const now = Date.UTC(2026, 10, 28, 12, 0, 0);
    assert.equal(retryAfterMs('120', now), 120_000);
    assert.equal(retryAfterMs(' 0 ', now), 0);
    assert.equal(retryAfterMs('Sat, 28 Nov 2026 12:05:00 GMT', now), 300_000);
    assert.equal(retryAfterMs('Sat, 28 Nov 2026 11:00:00 GMT', now), 0, 'a date already past');
    for (const bad of [null, undefined, '', '-5', '1.5', 'soon']) assert.equal(retryAfterMs(bad, now), undefined, String(bad));
  });

  test('WEBHOOK_RETRY_JITTER is a fraction from 0 to 1 (default 0.1)', () => {
    const base = { DATABASE_URL: 'postgres://unused/x', ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') };
    assert.equal(loadConfig(base).webhook.retryJitter, 0.1);
    assert.equal(loadConfig({ ...base, WEBHOOK_RETRY_JITTER: '0' }).webhook.retryJitter, 0);
    assert.equal(loadConfig({ ...base, WEBHOOK_RETRY_JITTER: '0.25' }).webhook.retryJitter, 0.25);
    assert.equal(loadConfig({ ...base, WEBHOOK_RETRY_JITTER: '1' }).webhook.retryJitter, 1);
    for (const bad of ['1.5', '-0.1', 'x', '2']) assert.throws(() => loadConfig({ ...base, WEBHOOK_RETRY_JITTER: bad }), /WEBHOOK_RETRY_JITTER/, bad);
  });
});
