import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RateAdmission } from '../../src/queue/rate-admission.js';
import { ManualClock } from '../../src/lib/clock.js';

describe('rate admission: a paused key', () => {
  test('after a pause one item starts exactly when the wait ends, the next one at the key rate', () => {
    const clock = new ManualClock(1_000_000);
    const admission = new RateAdmission<{ id: number }>({ concurrency: 10, capacity: 40, clock, rateOf: () => ({ key: 7, perSecond: 2 }) });
    assert.ok(admission.hold({ id: 1 }));
    assert.equal(admission.next()?.id, 1);
    admission.finish();
    admission.pause(7, 30_000);
    assert.ok(admission.hold({ id: 2 }));
    assert.ok(admission.hold({ id: 3 }));
    clock.advance(29_999);
    assert.equal(admission.next(), null, 'still paused');
    clock.advance(1);
    assert.equal(admission.next()?.id, 2, 'the wait was honoured exactly: no time after it is needed');
    assert.equal(admission.next(), null, 'the rest follow at the rate');
    clock.advance(500);
    assert.equal(admission.next()?.id, 3);
    admission.drainWaiting();
  });
});
