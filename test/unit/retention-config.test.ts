import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, ConfigError } from '../../src/config.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'parley-config-'));
const DAY = 86_400_000;

test('retention defaults: deliveries 30 days, jobs 7, idempotency keys 1, messages and events kept; hourly passes of 1,000 rows (100 on SQLite)', () => {
  assert.equal(loadConfig({ DATA_DIR: dataDir() }).retention.batchSize, 100, 'SQLite');
  assert.deepEqual(loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: 'postgres://u@h/db' }).retention, {
    deliveriesMs: 30 * DAY,
    jobsMs: 7 * DAY,
    idempotencyKeysMs: DAY,
    messagesMs: null,
    eventsMs: null,
    intervalMs: 3_600_000,
    batchSize: 1000,
    pauseMs: 20,
    loadSharePercent: 5,
    busyBatchMs: 10,
  });
  assert.equal(loadConfig({ DATA_DIR: dataDir() }).retention.busyBatchMs, 2, 'SQLite');
});

test('retention settings are read as given', () => {
  const c = loadConfig({
    DATA_DIR: dataDir(),
    RETENTION_DELIVERIES_DAYS: '90',
    RETENTION_JOBS_DAYS: '2',
    RETENTION_IDEMPOTENCY_KEYS_DAYS: '3',
    RETENTION_MESSAGES_DAYS: '365',
    RETENTION_EVENTS_DAYS: '7',
    RETENTION_INTERVAL_SECONDS: '60',
    RETENTION_BATCH_SIZE: '10000',
    RETENTION_BATCH_PAUSE_MS: '0',
    RETENTION_LOAD_SHARE_PERCENT: '20',
  });
  assert.deepEqual(c.retention, {
    deliveriesMs: 90 * DAY,
    jobsMs: 2 * DAY,
    idempotencyKeysMs: 3 * DAY,
    messagesMs: 365 * DAY,
    eventsMs: 7 * DAY,
    intervalMs: 60_000,
    batchSize: 10_000,
    pauseMs: 0,
    loadSharePercent: 20,
    busyBatchMs: 2,
  });
});

test('each retention setting is refused outside its bounds, or when not a whole number, with a message naming it', () => {
  // [setting, lowest accepted, highest accepted]
  const bounds: Array<[string, number, number]> = [
    ['RETENTION_DELIVERIES_DAYS', 1, 36_500],
    ['RETENTION_JOBS_DAYS', 1, 36_500],
    ['RETENTION_IDEMPOTENCY_KEYS_DAYS', 1, 36_500],
    ['RETENTION_MESSAGES_DAYS', 7, 36_500],
    ['RETENTION_EVENTS_DAYS', 7, 36_500],
    ['RETENTION_INTERVAL_SECONDS', 60, 604_800],
    ['RETENTION_BATCH_SIZE', 1, 10_000],
    ['RETENTION_BATCH_PAUSE_MS', 0, 60_000],
    ['RETENTION_LOAD_SHARE_PERCENT', 1, 100],
  ];
  for (const [name, low, high] of bounds) {
    for (const value of [low, high]) loadConfig({ DATA_DIR: dataDir(), [name]: String(value) });
    for (const value of [String(low - 1), String(high + 1), '2.5', 'ten', '-1']) {
      assert.throws(
        () => loadConfig({ DATA_DIR: dataDir(), [name]: value }),
        (e: unknown) => e instanceof ConfigError && e.message.includes(`${name}=`),
        `${name}=${value}`,
      );
    }
  }
});
