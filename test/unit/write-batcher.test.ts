import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WriteBatcher, type BatcherOptions, type PendingUnit } from '../../src/store/write-batcher.js';
import type { WriteUnit } from '../../src/store/write-unit.js';

const unit: WriteUnit = { insert: {} };
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A batcher whose flushes wait until the test ends them; `sizes` are the batches' sizes in the order they started. */
function heldBatcher(options: BatcherOptions) {
  const sizes: number[] = [];
  const ends: Array<() => void> = [];
  const batcher = new WriteBatcher((batch: PendingUnit[]) => {
    sizes.push(batch.length);
    return new Promise<void>((resolve) =>
      ends.push(() => {
        for (const p of batch) p.resolve();
        resolve();
      }),
    );
  }, options);
  return { batcher, sizes, endNext: () => ends.shift()!() };
}

test('units of one turn go as one batch; with slots free, later units start their own batch at once', async () => {
  const { batcher, sizes, endNext } = heldBatcher({ maxInFlight: 3, maxUnits: 100 });
  const first = [batcher.submit(unit), batcher.submit(unit)];
  await turn();
  const second = [batcher.submit(unit)];
  await turn();
  assert.deepEqual(sizes, [2, 1], 'two batches in flight');
  endNext();
  endNext();
  await Promise.all([...first, ...second]);
});

test('with overlapAt, units wait for the batch in flight and go as one larger batch after it', async () => {
  const { batcher, sizes, endNext } = heldBatcher({ maxInFlight: 3, maxUnits: 100, overlapAt: 4 });
  const all = [batcher.submit(unit)];
  await turn();
  for (let i = 0; i < 3; i++) {
    all.push(batcher.submit(unit));
    await turn();
  }
  assert.deepEqual(sizes, [1], 'three waiting units are fewer than overlapAt: no second batch yet');
  endNext();
  await all[0];
  // The next batch is scheduled when the first one's flush has settled: a turn after that.
  await turn();
  await turn();
  assert.deepEqual(sizes, [1, 3], 'they went together once the first batch ended');
  endNext();
  await Promise.all(all);
});

test('with overlapAt, a second batch starts beside the first once overlapAt units wait', async () => {
  const { batcher, sizes, endNext } = heldBatcher({ maxInFlight: 3, maxUnits: 100, overlapAt: 4 });
  const all = [batcher.submit(unit)];
  await turn();
  for (let i = 0; i < 4; i++) all.push(batcher.submit(unit));
  await turn();
  assert.deepEqual(sizes, [1, 4]);
  endNext();
  endNext();
  await Promise.all(all);
  await batcher.drain();
});
