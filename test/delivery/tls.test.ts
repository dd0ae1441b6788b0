import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ManualClock } from '../../src/lib/clock.js';
import { Receiver, expectedSignatures, selfSignedCertificate } from '../helpers/receiver.js';
import { appendEvent, channelWithWebhook, deliveryOf } from '../helpers/factories.js';
import { eventually } from '../helpers/waits.js';

for (const { dialect, skip } of await dialects()) {
  describe(`Webhooks over HTTPS with a self-signed certificate (${dialect})`, { skip }, () => {
    let s: TestServer;
    let receiver: Receiver;
    const clock = new ManualClock();
    before(async () => {
      receiver = await Receiver.start({ tls: selfSignedCertificate() });
      // Jitter off: the fake clock moves by the schedule's exact delays.
      s = await startTestServer(dialect, { clock, workers: true, env: { WORKER_POLL_MS: '20', WEBHOOK_RETRY_JITTER: '0' } });
    });
    after(async () => {
      await receiver?.close();
      await s?.close();
    });

    test('ssl_verification false accepts the self-signed certificate', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/lenient'), { ssl_verification: false });
      const event = await appendEvent(s, channel.id, { tls: 'off' });
      await receiver.waitFor((calls) => calls.some((c) => c.headers['x-parley-event-id'] === event.eventId));
      const call = receiver.calls.find((c) => c.headers['x-parley-event-id'] === event.eventId)!;
      assert.equal(call.headers['x-hub-signature'], expectedSignatures(call.raw, channel.secret).sha1);
      await eventually(async () => ((await deliveryOf(s, channel.id, event.deliveryId!)).status === 'delivered' ? true : undefined));
    });

    test('ssl_verification true refuses it: a failed try, retried, and nothing reaches the receiver', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/strict'), { ssl_verification: true });
      const event = await appendEvent(s, channel.id, { tls: 'on' });
      const d = await eventually(async () => {
        const x = await deliveryOf(s, channel.id, event.deliveryId!);
        return x.attempts.length === 1 ? x : undefined;
      });
      assert.equal(d.status, 'pending');
      assert.equal(d.attempts[0].status_code, null);
      assert.match(d.attempts[0].error, /self[- ]signed certificate/i);
      assert.equal(receiver.calls.filter((c) => c.path === '/strict').length, 0);

      // Switching verification off lets the retry through.
      await s.api.patch(`/v1/channels/${channel.id}`, { webhook: { ssl_verification: false } });
      clock.advance(60_000);
      s.runtime.services.outbox.wake();
      await receiver.waitFor((calls) => calls.some((c) => c.headers['x-parley-event-id'] === event.eventId));
    });
  });
}
