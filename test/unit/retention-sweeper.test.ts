import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, expectQuiet } from '../helpers/waits.js';
import { createLogger } from '../../src/lib/logger.js';
import { RetentionSweeper, type RetentionCounts, type RetentionPurge } from '../../src/domain/retention/purge.js';

const logger = createLogger('silent');
const NONE: RetentionCounts = { deliveries: 0, jobs: 0, idempotencyKeys: 0, messages: 0, events: 0, files: 0 };

/** A purge that records its passes and holds each one until told to end it. */
function heldPurge() {
  const passes: Array<{ signal: AbortSignal | undefined; end: () => void }> = [];
  const purge = {
    purge(signal?: AbortSignal): Promise<RetentionCounts | null> {
      return new Promise((resolve) => passes.push({ signal, end: () => resolve(NONE) }));
    },
  } as unknown as RetentionPurge;
  return { purge, passes };
}

test('the sweeper starts a pass each interval, never a second one while one runs', async () => {
  const { purge, passes } = heldPurge();
  const sweeper = new RetentionSweeper({ purge, intervalMs: 5, logger });
  sweeper.start();
  try {
    await eventually(async () => passes.length === 1 || undefined, 5_000, 'a first pass');
    // Several intervals go by while the pass is held: none of them starts another.
    await expectQuiet(50, 'no second pass starts while one runs');
    assert.equal(passes.length, 1);
    passes[0]!.end();
    await eventually(async () => passes.length === 2 || undefined, 5_000, 'the next pass once the first ended');
    passes[1]!.end();
  } finally {
    const stopping = sweeper.stop();
    for (const pass of passes) pass.end();
    await stopping;
  }
});

test('stopping the sweeper aborts the pass under way and waits for it', async () => {
  const { purge, passes } = heldPurge();
  const sweeper = new RetentionSweeper({ purge, intervalMs: 5, logger });
  sweeper.start();
  await eventually(async () => passes.length === 1 || undefined, 5_000, 'a pass');
  let stopped = false;
  const stopping = sweeper.stop().then(() => (stopped = true));
  assert.equal(passes[0]!.signal?.aborted, true);
  await Promise.resolve();
  assert.equal(stopped, false, 'stop waits for the pass to end');
  passes[0]!.end();
  await stopping;
  assert.equal(stopped, true);
});
