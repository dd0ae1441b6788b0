import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelCache, type ChannelSource } from '../../src/domain/messages/channel-cache.js';
import type { Channel } from '../../src/domain/channels/view.js';
import { createSignals } from '../../src/domain/signals.js';
import { ApiError } from '../../src/lib/errors.js';

function channel(id: number, accountId: number, name = 'c'): Channel {
  return {
    id: String(id),
    accountId,
    type: 'mobile',
    name,
    mode: 'test',
    config: {},
    secrets: {},
    webhook: null,
    settings: {},
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

/**
 * A source whose reads see the row as it is when asked and wait until the test answers them
 * (newest first with `answerNewestFirst`); `reads` lists what was asked.
 */
function heldSource(rows: Map<number, Channel>) {
  const reads: Array<{ accountId: number; id: number }> = [];
  const pending: Array<() => void> = [];
  const source: ChannelSource = {
    get(accountId, id) {
      reads.push({ accountId, id });
      const row = rows.get(id);
      return new Promise<Channel>((resolve, reject) =>
        pending.push(() => {
          if (row && row.accountId === accountId) resolve(row);
          else reject(ApiError.notFound('Channel'));
        }),
      );
    },
  };
  return {
    source,
    reads,
    answerAll: () => pending.splice(0).forEach((answer) => answer()),
    answerNewestFirst: () =>
      pending
        .splice(0)
        .reverse()
        .forEach((answer) => answer()),
  };
}

function cacheOver(rows: Map<number, Channel>, clock: { now: number }) {
  const held = heldSource(rows);
  const cache = new ChannelCache(
    held.source,
    5000,
    () => clock.now,
    createSignals(() => undefined),
  );
  return { cache, ...held };
}

test('requests that find no live entry for a channel share one read of it', async () => {
  const clock = { now: 0 };
  const { cache, reads, answerAll } = cacheOver(new Map([[7, channel(7, 1)]]), clock);
  const waiting = Array.from({ length: 50 }, () => cache.find(1, 7));
  answerAll();
  const found = await Promise.all(waiting);
  assert.equal(reads.length, 1);
  assert.ok(found.every((c) => c?.id === '7'));

  // Expired: again one read for all, then served from memory.
  clock.now = 5000;
  const again = [cache.find(1, 7), cache.find(1, 7), cache.find(1, 7)];
  answerAll();
  await Promise.all(again);
  assert.equal(reads.length, 2);
  assert.equal((await cache.find(1, 7))?.id, '7');
  assert.equal(reads.length, 2);
});

test("another account's lookup of a channel never joins the owner's read, nor gets the channel", async () => {
  const clock = { now: 0 };
  const { cache, reads, answerAll } = cacheOver(new Map([[7, channel(7, 1)]]), clock);
  const owner = cache.find(1, 7);
  const stranger = cache.find(2, 7);
  answerAll();
  assert.equal((await owner)?.id, '7');
  assert.equal(await stranger, undefined);
  assert.deepEqual(reads, [
    { accountId: 1, id: 7 },
    { accountId: 2, id: 7 },
  ]);
  // The cached entry is the owner's: the stranger still gets nothing.
  assert.equal(await cache.find(2, 7), undefined);
});

test('a channel forgotten while it is being read is read again, and the older read is not cached', async () => {
  const clock = { now: 0 };
  const rows = new Map([[7, channel(7, 1, 'before')]]);
  const { cache, reads, answerNewestFirst } = cacheOver(rows, clock);
  const early = cache.find(1, 7);
  // Changed here while that read is under way: it holds the old row.
  rows.set(7, channel(7, 1, 'after'));
  cache.forget(7);
  const late = cache.find(1, 7);
  assert.equal(reads.length, 2, 'a request after the change does not join the earlier read');
  // The older read answers last, as a slow query may.
  answerNewestFirst();
  assert.equal((await late)?.name, 'after');
  assert.equal((await early)?.name, 'before');
  assert.equal((await cache.find(1, 7))?.name, 'after', 'the older read did not replace the newer entry');
  assert.equal(reads.length, 2);
});

test('a channel that does not exist is not cached and its readers all get undefined', async () => {
  const clock = { now: 0 };
  const rows = new Map<number, Channel>();
  const { cache, reads, answerAll } = cacheOver(rows, clock);
  const both = [cache.find(1, 9), cache.find(1, 9)];
  answerAll();
  assert.deepEqual(await Promise.all(both), [undefined, undefined]);
  assert.equal(reads.length, 1);
  rows.set(9, channel(9, 1));
  const created = cache.find(1, 9);
  answerAll();
  assert.equal((await created)?.id, '9');
});
