import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SendingMessageReader } from '../../src/domain/sending/message-reader.js';
import type { SendingMessage } from '../../src/store/repos/messages.js';

/** A store read that records each query's keys and answers messages of account 1 only. */
function fakeReads() {
  const queries: number[][] = [];
  const read = async (keys: readonly { accountId: number; id: number }[]): Promise<(SendingMessage | undefined)[]> => {
    queries.push(keys.map((k) => k.id));
    return keys.map((k) => (k.accountId === 1 ? ({ id: k.id, status: 'queued' } as SendingMessage) : undefined));
  };
  return { queries, read };
}

describe('the send jobs message reader', () => {
  test('reads asked in one turn go out as one query, each answered with its own message', async () => {
    const { queries, read } = fakeReads();
    const reader = new SendingMessageReader(read);
    const got = await Promise.all([reader.read(1, 10), reader.read(1, 11), reader.read(2, 12)]);
    assert.deepEqual(queries, [[10, 11, 12]]);
    assert.deepEqual(
      got.map((m) => m?.id),
      [10, 11, undefined],
    );
  });

  test('messages read ahead for a claim are used once, while fresh; stale or taken ones are read again', async () => {
    const { queries, read } = fakeReads();
    let now = 1000;
    const reader = new SendingMessageReader(read, () => now);
    await reader.readAhead([
      { accountId: 1, id: 20 },
      { accountId: 1, id: 21 },
    ]);
    assert.equal(queries.length, 1);
    assert.equal((await reader.read(1, 20))?.id, 20);
    assert.equal(queries.length, 1, 'taken from the read-ahead');
    assert.equal((await reader.read(1, 20))?.id, 20);
    assert.equal(queries.length, 2, 'used once: a second read asks the store');
    now += 251;
    assert.equal((await reader.read(1, 21))?.id, 21);
    assert.equal(queries.length, 3, 'too old: read again, so a message deleted meanwhile is not sent');
  });

  test('a read that comes while its read-ahead is under way waits for it; a failed read-ahead leaves each job to read for itself', async () => {
    const { queries, read } = fakeReads();
    const reader = new SendingMessageReader(read, () => 0);
    const ahead = reader.readAhead([{ accountId: 1, id: 40 }]);
    const got = await reader.read(1, 40);
    await ahead;
    assert.equal(got?.id, 40);
    assert.equal(queries.length, 1, 'one query for both');

    let fail = true;
    const flaky = new SendingMessageReader(async (keys) => {
      if (fail) {
        fail = false;
        throw new Error('connection lost');
      }
      return read(keys);
    });
    const failing = flaky.readAhead([{ accountId: 1, id: 41 }]);
    await assert.rejects(failing);
    assert.equal((await flaky.read(1, 41))?.id, 41);
  });

  test('a read for another account than the one read ahead asks the store', async () => {
    const { queries, read } = fakeReads();
    const reader = new SendingMessageReader(read, () => 0);
    await reader.readAhead([{ accountId: 1, id: 30 }]);
    assert.equal(await reader.read(2, 30), undefined);
    assert.equal(queries.length, 2);
  });

  test('a failed query fails every read of its batch', async () => {
    const reader = new SendingMessageReader(async () => {
      throw new Error('database gone');
    });
    const results = await Promise.allSettled([reader.read(1, 1), reader.read(1, 2)]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    );
  });
});
