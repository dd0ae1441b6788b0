/**
 * The deliveries listing reads each row and its tries from one snapshot: a try committed between
 * the two reads must not appear beside the row as it was before that try (a pending row with a
 * try but the old next_attempt and no last_error). The gap between the reads is widened here so
 * that a try always lands in it.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ManualClock } from '../../src/lib/clock.js';
import { DeliveriesRepo } from '../../src/store/repos/deliveries.js';
import { Receiver } from '../helpers/receiver.js';
import { appendEvent, channelWithWebhook, deliveryOf } from '../helpers/factories.js';

const list = DeliveriesRepo.prototype.list;
let gapMs = 0;
DeliveriesRepo.prototype.list = async function (this: DeliveriesRepo, ...args: Parameters<typeof list>) {
  const result = await list.apply(this, args);
  if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
  return result;
};

for (const { dialect, skip } of await dialects()) {
  describe(`Deliveries listing is one snapshot (${dialect})`, { skip }, () => {
    let s: TestServer;
    let receiver: Receiver;
    const clock = new ManualClock();
    before(async () => {
      receiver = await Receiver.start();
      receiver.answer = () => ({ status: 500, delayMs: 50 });
      // Jitter off: the fake clock moves by the schedule's exact delays.
      s = await startTestServer(dialect, { clock, workers: true, env: { WORKER_POLL_MS: '20', WEBHOOK_RETRY_JITTER: '0' } });
    });
    after(async () => {
      gapMs = 0;
      await receiver?.close();
      await s?.close();
    });

    test('a try recorded while the listing reads shows with the row state it led to, or not at all', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/fails'));
      const event = await appendEvent(s, channel.id);
      gapMs = 300; // the call is answered after 50 ms and recorded well within the gap
      const d = await deliveryOf(s, channel.id, event.deliveryId!);
      gapMs = 0;
      assert.equal(d.status, 'pending');
      if (d.attempts.length === 1) {
        assert.equal(Date.parse(d.next_attempt), clock.now() + 60_000);
        assert.equal(d.last_error, 'The receiver answered 500.');
      } else {
        assert.equal(d.attempts.length, 0);
        assert.equal(Date.parse(d.next_attempt), clock.now());
        assert.equal(d.last_error, null);
      }
    });
  });
}
