import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdGenerator, parseId } from '../../src/lib/ids.js';

test('ids increase, are unique, and stay below 2^53', () => {
  const ids = new IdGenerator(3);
  let last = 0;
  const seen = new Set<number>();
  for (let i = 0; i < 20_000; i++) {
    const n = ids.nextNumber();
    assert.ok(n > last);
    assert.ok(Number.isSafeInteger(n));
    seen.add(n);
    last = n;
  }
  assert.equal(seen.size, 20_000);
  const far = new IdGenerator(15, () => Date.UTC(2090, 0, 1));
  assert.ok(far.nextNumber() < 2 ** 53);
});

test('more than 256 ids in one millisecond borrow the next millisecond instead of repeating', () => {
  const ids = new IdGenerator(0, () => Date.UTC(2026, 0, 1));
  const made = Array.from({ length: 600 }, () => ids.nextNumber());
  assert.equal(new Set(made).size, 600);
  assert.deepEqual(
    made,
    [...made].sort((a, b) => a - b),
  );
});

test('instances never make the same id at the same moment', () => {
  const now = () => Date.UTC(2026, 0, 1);
  const a = new IdGenerator(0, now);
  const b = new IdGenerator(1, now);
  const all = new Set<number>();
  for (let i = 0; i < 256; i++) {
    all.add(a.nextNumber());
    all.add(b.nextNumber());
  }
  assert.equal(all.size, 512);
  assert.throws(() => new IdGenerator(16));
});

test('a clock stepping back does not make ids go back', () => {
  let t = Date.UTC(2026, 0, 1, 12);
  const ids = new IdGenerator(0, () => t);
  const before = ids.nextNumber();
  t -= 5000;
  assert.ok(ids.nextNumber() > before);
});

test('parseId accepts decimal strings of safe integers only', () => {
  assert.equal(parseId('42'), 42);
  for (const bad of ['', '0', '-1', '01', '1.5', 'abc', '9007199254740993', '99999999999999999']) assert.equal(parseId(bad), null, bad);
});

test('an instance number given as a function is asked at every id: while it throws no id is issued, and a new number is used at once', () => {
  let instance: number | null = 2;
  const ids = new IdGenerator(
    () => {
      if (instance === null) throw new Error('not held');
      return instance;
    },
    () => Date.UTC(2026, 0, 1),
  );
  const first = ids.nextNumber();
  assert.equal(Math.floor(first / 256) % 16, 2);
  instance = null;
  assert.throws(() => ids.nextNumber(), /not held/);
  instance = 7;
  const next = ids.nextNumber();
  assert.equal(Math.floor(next / 256) % 16, 7);
  assert.ok(next > first);
  instance = 16;
  assert.throws(() => ids.nextNumber(), /instance must be 0..15/);
});
