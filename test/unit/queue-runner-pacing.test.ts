import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QueueRunner } from '../../src/queue/runner.js';
import type { Admission, Lease, TaskContext, TaskKind, TaskSource } from '../../src/queue/task.js';
import { createLogger } from '../../src/lib/logger.js';
import { eventually, expectQuiet } from '../helpers/waits.js';

/**
 * The runner's pacing options (queue/runner.ts): claims woken by new work wait for
 * `wakeClaimGapMs` after the claim before them (longer after a claim that found nothing:
 * `emptyClaimGapFactor`, `emptyClaimGapMs`), claims for free room do not; outcomes wait
 * `flushDelayMs` for others to share their write-back.
 */

const logger = createLogger('silent');

/** An in-memory task kind: items are numbers, each run records its number as its outcome. */
function memoryKind() {
  const due: number[] = [];
  const claims: number[] = [];
  const writes: number[][] = [];
  const listeners: Array<() => void> = [];
  let wantsMore = false;
  let claimDelayMs = 0;
  let leftOut = true;
  const waiting: number[] = [];
  let sweeps = 0;
  const source: TaskSource<number, number> = {
    async claim(_lease: Lease, limit: number) {
      // A claim that reads a large backlog takes its time.
      if (claimDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, claimDelayMs));
      const items = due.splice(0, limit);
      claims.push(items.length);
      for (const l of listeners.splice(0)) l();
      return items;
    },
    complete(outcomes) {
      writes.push([...outcomes]);
      for (const l of listeners.splice(0)) l();
      return Promise.resolve();
    },
    release: () => Promise.resolve(),
    releaseOrphans: () => {
      sweeps += 1;
      return Promise.resolve(0);
    },
    subscribe: () => () => Promise.resolve(),
    leftOutLimited: () => leftOut,
  };
  const admission: Admission<number, number> = {
    room: () => 100,
    wantsClaim: () => wantsMore,
    hold: (item) => (waiting.push(item), true),
    next: () => waiting.shift() ?? null,
    finish: () => undefined,
    drainWaiting: () => waiting.splice(0),
    active: 0,
    held: 0,
  };
  const kind: TaskKind<number, number, number> = {
    name: 'memory',
    source,
    admission,
    leaseMs: 60_000,
    async run(item: number, context: TaskContext<number>) {
      // Items end 50 ms apart: outcomes written as soon as they end are written apart.
      await new Promise((resolve) => setTimeout(resolve, item * 50));
      context.record(item);
    },
  };
  /** Resolves at the next claim or write-back. */
  const next = () => new Promise<void>((resolve) => listeners.push(resolve));
  return {
    kind,
    due,
    claims,
    writes,
    next,
    setWantsMore: (v: boolean) => (wantsMore = v),
    setClaimDelay: (ms: number) => (claimDelayMs = ms),
    setLeftOut: (v: boolean) => (leftOut = v),
    sweeps: () => sweeps,
  };
}

let ids = 0;
const options = { instanceId: 1, nextId: () => ++ids, pollMs: 600_000, logger };

test('claims woken by new work wait for the gap after the claim before; a claim for free room goes at once', async () => {
  const m = memoryKind();
  const runner = new QueueRunner(m.kind, { ...options, wakeClaimGapMs: 600_000 });
  const first = m.next();
  runner.start();
  await first;
  assert.deepEqual(m.claims, [0], 'the first wake-up claims at once');
  m.due.push(1, 2, 3);
  for (let i = 0; i < 5; i++) runner.wake();
  await expectQuiet(200, 'wake-ups within the gap claim nothing');
  assert.deepEqual(m.claims, [0]);
  m.setWantsMore(true);
  const refill = m.next();
  runner.wake();
  await refill;
  assert.deepEqual(m.claims, [0, 3], 'a claim the admission asks for does not wait for the gap');
  m.setWantsMore(false);
  await runner.stop();
});

test('with a gap factor, a claim that cost next to nothing lets the next woken claim go at once', async () => {
  const m = memoryKind();
  // The ceiling alone would hold the woken claim for ten minutes; the in-memory claim takes
  // microseconds, so four times its time is no wait to speak of.
  const runner = new QueueRunner(m.kind, { ...options, wakeClaimGapMs: 600_000, wakeClaimGapFactor: 4 });
  const first = m.next();
  runner.start();
  await first;
  m.due.push(1, 2, 3);
  const second = m.next();
  runner.wake();
  await second;
  assert.deepEqual(m.claims, [0, 3]);
  await runner.stop();
});

/**
 * A runner whose first claim found nothing after 30 ms, having left items out for limits or not.
 * No gap after a claim that took something; twenty times the empty claim's time (600 ms) after
 * one that took nothing while it left items out.
 */
async function afterEmptyClaim(leftOut: boolean) {
  const m = memoryKind();
  const runner = new QueueRunner(m.kind, { ...options, wakeClaimGapMs: 0, emptyClaimGapFactor: 20, emptyClaimGapMs: 600_000 });
  m.setLeftOut(leftOut);
  m.setClaimDelay(30);
  const first = m.next();
  runner.start();
  await first;
  m.setClaimDelay(0);
  return { m, runner };
}

test('after a claim that found nothing, woken claims wait its time times the empty-claim factor; a claim for free room goes at once', async () => {
  const { m, runner } = await afterEmptyClaim(true);
  assert.deepEqual(m.claims, [0], 'the first claim found nothing');
  const emptyAt = Date.now();
  m.due.push(1, 2, 3);
  for (let i = 0; i < 5; i++) runner.wake();
  await expectQuiet(300, 'woken claims wait after an empty one');
  assert.deepEqual(m.claims, [0]);
  const later = m.next();
  await later;
  assert.deepEqual(m.claims, [0, 3], 'the woken claim comes after the wait');
  assert.ok(Date.now() - emptyAt >= 500, `it waited about twenty times the empty claim (${Date.now() - emptyAt} ms)`);
  // That claim took something: the next woken claim has no wait.
  m.due.push(4);
  const again = m.next();
  runner.wake();
  await again;
  assert.deepEqual(m.claims, [0, 3, 1]);
  await runner.stop();
});

test('a claim that found nothing because nothing was due (no item left out for limits) changes no wait', async () => {
  const { m, runner } = await afterEmptyClaim(false);
  m.due.push(1, 2);
  const woken = m.next();
  const wokenAt = Date.now();
  runner.wake();
  await woken;
  assert.deepEqual(m.claims, [0, 2]);
  assert.ok(Date.now() - wokenAt < 300, `at once (${Date.now() - wokenAt} ms)`);
  await runner.stop();
});

test('after an empty claim, a claim the admission asks for (free room) does not wait', async () => {
  const { m, runner } = await afterEmptyClaim(true);
  m.due.push(1, 2);
  m.setWantsMore(true);
  const refill = m.next();
  const askedAt = Date.now();
  runner.wake();
  await refill;
  assert.deepEqual(m.claims, [0, 2]);
  assert.ok(Date.now() - askedAt < 300, `at once (${Date.now() - askedAt} ms)`);
  m.setWantsMore(false);
  await runner.stop();
});

test('outcomes ending within the flush delay are written back together', async () => {
  const m = memoryKind();
  const runner = new QueueRunner(m.kind, { ...options, flushDelayMs: 1000 });
  m.due.push(1, 2, 3, 4);
  const claimed = m.next();
  runner.start();
  await claimed;
  const written = m.next();
  await written;
  await runner.stop();
  assert.deepEqual(m.writes, [[1, 2, 3, 4]]);
});

test('without a flush delay, outcomes ending in different turns are written apart', async () => {
  const m = memoryKind();
  const runner = new QueueRunner(m.kind, options);
  m.due.push(1, 2, 3, 4);
  const claimed = m.next();
  runner.start();
  await claimed;
  await runner.stop();
  assert.ok(m.writes.length > 1, `one write-back: ${JSON.stringify(m.writes)}`);
  assert.deepEqual(m.writes.flat().sort(), [1, 2, 3, 4]);
});

test('a runner that keeps claiming still frees the leases of processes that ended, every sweepMs', async () => {
  const m = memoryKind();
  // The admission asks for a claim on every turn and each finds nothing (rows held back, say):
  // the runner never waits, and its sweep must come all the same.
  m.setWantsMore(true);
  m.setClaimDelay(1);
  const runner = new QueueRunner(m.kind, { ...options, sweepMs: 50 });
  runner.start();
  try {
    await eventually(async () => (m.sweeps() >= 3 ? true : undefined), 5_000, 'three sweeps while claiming');
    assert.ok(m.claims.length > 3, 'it kept claiming meanwhile');
  } finally {
    m.setWantsMore(false);
    await runner.stop();
  }
});
