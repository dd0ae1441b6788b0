import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { answerSignal, INITIAL_RECEIVER_LIMIT, ReceiverLimit } from '../../src/delivery/receiver-limit.js';
import { EndpointSlots, type Ticket } from '../../src/delivery/endpoint-slots.js';

/** `n` answers in a row at `latencyMs`, each while the receiver holds its whole limit. */
function answer(limit: ReceiverLimit, n: number, latencyMs: number, signal: 'ok' | 'overload' | 'neutral', at: { now: number }): void {
  for (let i = 0; i < n; i++) {
    at.now += latencyMs;
    limit.observe(at.now, latencyMs, signal, limit.current);
  }
}

describe('A receiver limit', () => {
  test('starts low, grows while a receiver answers well under load, and stops at the ceiling', () => {
    const limit = new ReceiverLimit(16);
    const at = { now: 0 };
    assert.equal(limit.current, INITIAL_RECEIVER_LIMIT);
    answer(limit, 1, 2, 'ok', at);
    assert.equal(limit.current, INITIAL_RECEIVER_LIMIT + 1, 'one more call per good answer at first');
    answer(limit, 100, 2, 'ok', at);
    assert.equal(limit.current, 16, 'never above the ceiling');
    assert.equal(new ReceiverLimit(2).current, 2, 'a ceiling under the start value is the start');
  });

  test('does not grow for a receiver that uses little of its limit', () => {
    const limit = new ReceiverLimit(16);
    for (let i = 0; i < 50; i++) limit.observe(i * 5, 2, 'ok', 1);
    assert.equal(limit.current, INITIAL_RECEIVER_LIMIT);
  });

  test('halves on an overload answer, once per round trip, and never below one', () => {
    const limit = new ReceiverLimit(16);
    const at = { now: 0 };
    answer(limit, 100, 20, 'ok', at);
    assert.equal(limit.current, 16);
    // A burst of 16 failures ending together counts once.
    for (let i = 0; i < 16; i++) limit.observe(at.now + 1, 20, 'overload', 16);
    assert.equal(limit.current, 8);
    at.now += 100;
    answer(limit, 10, 20, 'overload', at);
    assert.equal(limit.current, 1);
  });

  test('after a cut, grows by about one call per round trip', () => {
    const limit = new ReceiverLimit(16);
    const at = { now: 0 };
    answer(limit, 100, 10, 'ok', at);
    limit.observe((at.now += 10), 10, 'overload', 16);
    assert.equal(limit.current, 8);
    answer(limit, 7, 10, 'ok', at);
    assert.equal(limit.current, 8, 'less than a window of good answers adds less than one');
    answer(limit, 2, 10, 'ok', at);
    assert.equal(limit.current, 9, 'a window of good answers adds about one');
  });

  test('takes a fifth off when answers are much slower than usual, and learns a new normal', () => {
    const limit = new ReceiverLimit(16);
    const at = { now: 0 };
    answer(limit, 100, 5, 'ok', at);
    assert.equal(limit.current, 16);
    answer(limit, 1, 150, 'ok', at);
    assert.equal(limit.current, 16, 'a stall under the margin is no sign');
    answer(limit, 1, 300, 'ok', at);
    assert.equal(limit.current, 12, '16 * 0.8, rounded down');
    // Answers that stay at 300 ms become the usual latency: the limit stops falling and grows again.
    answer(limit, 2000, 300, 'ok', at);
    assert.equal(limit.current, 16);
  });

  test('other answers neither grow nor cut it', () => {
    const limit = new ReceiverLimit(16);
    const at = { now: 0 };
    answer(limit, 50, 5, 'neutral', at);
    assert.equal(limit.current, INITIAL_RECEIVER_LIMIT);
  });

  test('answers map to signals by status', () => {
    assert.equal(answerSignal(200), 'ok');
    assert.equal(answerSignal(204), 'ok');
    for (const code of [null, 408, 429, 500, 502, 503]) assert.equal(answerSignal(code), 'overload', String(code));
    for (const code of [301, 400, 401, 404, 410]) assert.equal(answerSignal(code), 'neutral', String(code));
  });
});

describe('Endpoint slots with learned limits', () => {
  test("a failing receiver gets fewer calls and holds fewer rows; the other's slots are untouched", () => {
    const slots = new EndpointSlots<string>(32, 8, 8);
    const running: Ticket<string>[] = [];
    const fill = (endpoint: string) => {
      let n = 0;
      while (slots.add(endpoint, 1, endpoint, `${endpoint}${n}`)) n += 1;
      for (let t = slots.take(); t; t = slots.take()) running.push(t);
      return n;
    };
    assert.equal(slots.limit('bad'), 4, 'a new receiver starts at four calls');
    assert.equal(fill('bad'), 4 + 2 * 4, 'its limit plus two batches scaled to it');
    assert.equal(running.length, 4);
    // Every call fails; each cut waits a round trip.
    let now = 0;
    for (let round = 0; round < 4; round++) {
      now += 100;
      const ticket = running.shift()!;
      slots.observe(ticket, now, 10, 'overload');
      slots.finish(ticket);
    }
    assert.equal(slots.limit('bad'), 1);
    assert.equal(slots.canTakeBatch('bad'), false, 'it holds more than its smaller share');
    assert.equal(slots.add('bad', 1, 'bad', 'more'), false);
    for (const t of running.splice(0)) slots.finish(t);
    assert.deepEqual(slots.drainWaiting().length, 8);
    assert.equal(slots.canTakeBatch('bad'), true, 'room again once its rows are gone');
    let held = 0;
    while (slots.add('bad', 1, 'bad', `b${held}`)) held += 1;
    assert.equal(held, 1 + 2 * 1, 'one call and two batches of one');
    assert.equal(slots.limit('good'), 4);
  });
});
