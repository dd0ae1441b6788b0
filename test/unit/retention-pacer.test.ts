import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/lib/clock.js';
import { MAX_PAUSE_MS, MIN_BATCH, PurgePacer, type LoadSample, type PacerSettings } from '../../src/domain/retention/pacer.js';

const SETTINGS: PacerSettings = { maxBatch: 1000, minPauseMs: 20, loadSharePercent: 5, busyBatchMs: 10 };
const IDLE: LoadSample = { eventLoopBusy: 0.02, queriesElsewhere: 0, transactions: null };
const BUSY_LOOP: LoadSample = { eventLoopBusy: 0.9, queriesElsewhere: null, transactions: null };
const BUSY_STORE: LoadSample = { eventLoopBusy: 0.05, queriesElsewhere: 4, transactions: null };

/** Runs one batch taking `ms` of the fake clock; answers the pace after it. */
function batch(pacer: PurgePacer, clock: ManualClock, ms: number, load: LoadSample) {
  pacer.batchStarted();
  clock.advance(ms);
  return pacer.batchEnded(load);
}

test('a pass starts cautious: a small batch, taken as busy until a few idle batches in a row', () => {
  const clock = new ManualClock(0);
  const pacer = new PurgePacer(SETTINGS, clock);
  assert.equal(pacer.batchSize, MIN_BATCH);
  assert.equal(pacer.isBusy, true);
  // Two idle batches are not enough: the pause still keeps the batches to 5% of the time.
  assert.deepEqual(batch(pacer, clock, 2, IDLE), { batch: MIN_BATCH + 25, pauseMs: 38 });
  assert.equal(pacer.isBusy, true);
  batch(pacer, clock, 2, IDLE);
  const third = batch(pacer, clock, 2, IDLE);
  assert.equal(pacer.isBusy, false);
  assert.equal(third.pauseMs, SETTINGS.minPauseMs);
});

test('idle: the batch grows by a tenth of the largest up to RETENTION_BATCH_SIZE, with the shortest pause', () => {
  const clock = new ManualClock(0);
  const pacer = new PurgePacer(SETTINGS, clock);
  for (let i = 0; i < 3; i++) batch(pacer, clock, 1, IDLE);
  const sizes: number[] = [];
  for (let i = 0; i < 20; i++) {
    const pace = batch(pacer, clock, 5, IDLE);
    sizes.push(pace.batch);
    assert.equal(pace.pauseMs, 20);
  }
  assert.ok(
    sizes.every((n, i) => i === 0 || n >= sizes[i - 1]!),
    'never shrinks while idle',
  );
  assert.equal(sizes.at(-1), 1000, 'reaches the largest batch');
  assert.equal(Math.max(...sizes), 1000, 'never more than the largest');
});

/** A pacer already at its largest batch, the service idle. */
function idlePacer(clock: ManualClock): PurgePacer {
  const pacer = new PurgePacer(SETTINGS, clock);
  for (let i = 0; i < 20; i++) batch(pacer, clock, 5, IDLE);
  assert.equal(pacer.batchSize, 1000);
  assert.equal(pacer.isBusy, false);
  return pacer;
}

for (const [what, load] of [
  ["this process's event loop busy during the pause", BUSY_LOOP],
  ['other queries running on the store', BUSY_STORE],
] as const) {
  test(`load (${what}): the batch halves while it takes longer than busyBatchMs, and the pause keeps the batches to the load share`, () => {
    const clock = new ManualClock(0);
    const pacer = idlePacer(clock);
    // A batch of 1,000 rows takes 40 ms: under load it halves each time it is too long.
    const first = batch(pacer, clock, 40, load);
    assert.equal(pacer.isBusy, true);
    assert.equal(first.batch, 500);
    assert.equal(first.pauseMs, 760, '40 ms of batch in 800 ms: 5%');
    const second = batch(pacer, clock, 20, load);
    assert.equal(second.batch, 250);
    assert.equal(second.pauseMs, 380);
    batch(pacer, clock, 10, load);
    // Once short enough it stays about there.
    const settled = batch(pacer, clock, 8, load);
    assert.equal(settled.batch, 250);
    assert.equal(settled.pauseMs, 152);
  });
}

test('batches much slower than the usual of their size mark the service busy, with no other sign; one alone does not', () => {
  const clock = new ManualClock(0);
  const pacer = idlePacer(clock);
  batch(pacer, clock, 5, IDLE);
  // One batch four times as long is noise (a shared host): the pace stays.
  assert.deepEqual(batch(pacer, clock, 20, IDLE), { batch: 1000, pauseMs: 20 });
  assert.equal(pacer.isBusy, false);
  // Two in a row: the database is busy with something else.
  const pace = batch(pacer, clock, 30, IDLE);
  assert.equal(pacer.isBusy, true);
  assert.equal(pace.batch, 500);
  assert.equal(pace.pauseMs, 570);
  // Its speed back is not enough at once: three idle batches in a row are.
  batch(pacer, clock, 3, IDLE);
  batch(pacer, clock, 3, IDLE);
  assert.equal(pacer.isBusy, true);
  batch(pacer, clock, 3, IDLE);
  assert.equal(pacer.isBusy, false);
});

test('under sustained load the batches take about the load share of the time, and the purge never stops', () => {
  const clock = new ManualClock(0);
  const pacer = idlePacer(clock);
  const start = clock.now();
  let batchMs = 0;
  let rows = 0;
  for (let i = 0; i < 500; i++) {
    // Under load a row costs 80 µs, plus 1 ms a batch.
    const ms = 1 + pacer.batchSize * 0.08;
    const size = pacer.batchSize;
    const pace = batch(pacer, clock, ms, BUSY_LOOP);
    batchMs += ms;
    rows += size;
    assert.ok(pace.pauseMs <= MAX_PAUSE_MS);
    assert.ok(pace.batch >= MIN_BATCH);
    clock.advance(pace.pauseMs);
  }
  const share = batchMs / (clock.now() - start);
  assert.ok(share > 0.04 && share <= 0.055, `share ${share}`);
  // 5% of the idle pace (a row 80 µs): about 600 rows a second.
  const rate = rows / ((clock.now() - start) / 1000);
  assert.ok(rate > 450, `rate ${rate}`);
});

test('a batch slower than anything still moves: the pause never exceeds MAX_PAUSE_MS, the batch never falls under MIN_BATCH', () => {
  const clock = new ManualClock(0);
  const pacer = new PurgePacer(SETTINGS, clock);
  const pace = batch(pacer, clock, 500, BUSY_LOOP);
  assert.equal(pace.pauseMs, MAX_PAUSE_MS);
  assert.equal(pace.batch, MIN_BATCH);
});

test('a largest batch smaller than MIN_BATCH is kept (tests and tiny settings)', () => {
  const clock = new ManualClock(0);
  const pacer = new PurgePacer({ ...SETTINGS, maxBatch: 3, minPauseMs: 0 }, clock);
  assert.equal(pacer.batchSize, 3);
  for (let i = 0; i < 5; i++) assert.equal(batch(pacer, clock, 0, IDLE).batch, 3);
  assert.equal(batch(pacer, clock, 0, IDLE).pauseMs, 0);
});

test("other sessions' transactions (from any process) at 20 a second or more mark the service busy; the purge's own do not count", () => {
  const clock = new ManualClock(0);
  const pacer = idlePacer(clock);
  let total = 1_000;
  /** A batch of 5 ms, then a pause of 95 ms during which others commit `others` transactions. */
  const step = (others: number) => {
    // The purge's own two (its batch and the sampling query) and the others'.
    total += 2 + others;
    const pace = batch(pacer, clock, 5, { eventLoopBusy: 0.01, queriesElsewhere: 0, transactions: total });
    clock.advance(95);
    return pace;
  };
  // 10 batches a second, each with its own two transactions and 1 other: 10 a second, idle.
  for (let i = 0; i < 40; i++) step(1);
  assert.equal(pacer.isBusy, false);
  // 3 others a batch: 30 a second, busy once the window sees it.
  for (let i = 0; i < 40; i++) step(3);
  assert.equal(pacer.isBusy, true);
  // Back to 1 a batch: idle again once the window has forgotten the busy seconds.
  for (let i = 0; i < 60; i++) step(1);
  assert.equal(pacer.isBusy, false);
});
