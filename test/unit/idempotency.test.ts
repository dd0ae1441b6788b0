import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, checkIdempotencyKey, requestHash } from '../../src/domain/messages/idempotency.js';
import { ApiError } from '../../src/lib/errors.js';

describe('idempotency rules', () => {
  test('key: 1..255 visible ASCII characters', () => {
    assert.equal(checkIdempotencyKey(undefined), undefined);
    assert.equal(checkIdempotencyKey('a'), 'a');
    assert.equal(checkIdempotencyKey('k'.repeat(255)), 'k'.repeat(255));
    for (const bad of ['', 'k'.repeat(256), 'with space', 'ünïcode']) {
      assert.throws(
        () => checkIdempotencyKey(bad),
        (e: unknown) => e instanceof ApiError && e.status === 422 && e.details[0]!.field === 'Idempotency-Key',
      );
    }
  });
  test('the body hash ignores key order but not values', () => {
    assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }), '{"a":[{"c":3,"d":2}],"b":1}');
    assert.equal(requestHash({ a: 1, b: 2 }), requestHash({ b: 2, a: 1 }));
    assert.notEqual(requestHash({ a: 1 }), requestHash({ a: 2 }));
    assert.notEqual(requestHash({ a: '1' }), requestHash({ a: 1 }));
  });
});
