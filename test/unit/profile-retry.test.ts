import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROFILE_RETRY_FIRST_MS, PROFILE_RETRY_MAX_MS, profileRetryDelay } from '../../src/domain/inbound/profiles.js';

test('a failed profile read waits one minute, doubling with each failure, never more than a day', () => {
  assert.equal(PROFILE_RETRY_FIRST_MS, 60_000);
  assert.equal(PROFILE_RETRY_MAX_MS, 24 * 60 * 60 * 1000);
  assert.deepEqual([1, 2, 3, 4].map(profileRetryDelay), [60_000, 120_000, 240_000, 480_000]);
  // 60 s x 2^10 = 17 h 4 min is under the cap; the next doubling is over it.
  assert.equal(profileRetryDelay(11), 60_000 * 1024);
  assert.equal(profileRetryDelay(12), PROFILE_RETRY_MAX_MS);
  assert.equal(profileRetryDelay(1000), PROFILE_RETRY_MAX_MS, 'no overflow for many failures');
  assert.equal(profileRetryDelay(0), 60_000);
});
