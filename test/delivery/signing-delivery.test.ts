import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { Receiver, expectedSignatures } from '../helpers/receiver.js';
import { appendEvent, channelWithWebhook, deliveries } from '../helpers/factories.js';
import { eventually, expectQuiet } from '../helpers/waits.js';

for (const { dialect, skip } of await dialects()) {
  describe(`Webhook calls: body and signatures (${dialect})`, { skip }, () => {
    let s: TestServer;
    let receiver: Receiver;
    before(async () => {
      receiver = await Receiver.start();
      s = await startTestServer(dialect, { workers: true, env: { WORKER_POLL_MS: '20' } });
    });
    after(async () => {
      await receiver?.close();
      await s?.close();
    });

    test('an event arrives as a signed POST whose signatures match an independent HMAC of the raw bytes', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/events?source=parley'));
      // Non-ASCII text: the signature is over the UTF-8 bytes exactly as sent.
      const appended = await appendEvent(s, channel.id, { content: { type: 'text', payload: 'Příliš žluťoučký kůň 😀 "quoted" \\ slash' } });
      await receiver.waitFor((calls) => calls.some((c) => c.headers['x-parley-event-id'] === appended.eventId));
      const call = receiver.calls.find((c) => c.headers['x-parley-event-id'] === appended.eventId)!;

      assert.equal(call.path, '/events?source=parley');
      assert.equal(call.headers['content-type'], 'application/json');
      assert.equal(call.raw.toString('utf8'), appended.body, 'the exact stored body is sent');
      assert.deepEqual(Object.keys(call.body), ['event', 'timestamp', 'data']);
      assert.equal(call.body.event, 'message_echo');
      assert.match(call.body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(call.body.data.content.payload, 'Příliš žluťoučký kůň 😀 "quoted" \\ slash');

      const expected = expectedSignatures(call.raw, channel.secret);
      assert.match(String(call.headers['x-hub-signature']), /^sha1=[0-9a-f]{40}$/);
      assert.equal(call.headers['x-hub-signature'], expected.sha1);
      assert.match(String(call.headers['x-hub-signature-256']), /^sha256=[0-9a-f]{64}$/);
      assert.equal(call.headers['x-hub-signature-256'], expected.sha256);
      // A wrong key gives another signature: the check above is not vacuous.
      assert.notEqual(call.headers['x-hub-signature'], expectedSignatures(call.raw, `${channel.secret}x`).sha1);

      assert.equal(call.headers['x-parley-event'], 'message_echo');
      assert.equal(call.headers['x-parley-delivery-id'], appended.deliveryId);
      assert.equal(call.headers['x-parley-attempt'], '1');
    });

    test('each channel signs with its own secret', async () => {
      const a = await channelWithWebhook(s, receiver.url('/a'));
      const b = await channelWithWebhook(s, receiver.url('/b'));
      assert.notEqual(a.secret, b.secret);
      const ea = await appendEvent(s, a.id, { n: 1 });
      const eb = await appendEvent(s, b.id, { n: 2 });
      await receiver.waitFor((calls) => [ea.eventId, eb.eventId].every((id) => calls.some((c) => c.headers['x-parley-event-id'] === id)));
      for (const [event, channel] of [
        [ea, a],
        [eb, b],
      ] as const) {
        const call = receiver.calls.find((c) => c.headers['x-parley-event-id'] === event.eventId)!;
        assert.equal(call.headers['x-hub-signature'], expectedSignatures(call.raw, channel.secret).sha1);
        assert.equal(call.headers['x-hub-signature-256'], expectedSignatures(call.raw, channel.secret).sha256);
      }
    });

    test('a channel without a webhook records the event but delivers nothing', async () => {
      const res = await s.api.post('/v1/channels', { type: 'service_chat', name: 'quiet' });
      const before = receiver.calls.length;
      const appended = await appendEvent(s, res.body.id, { n: 3 });
      assert.equal(appended.deliveryId, null);
      assert.deepEqual(await deliveries(s, res.body.id), []);
      const row = await s.runtime.store.db.selectFrom('events').select('id').where('id', '=', Number(appended.eventId)).executeTakeFirst();
      assert.ok(row, 'the event row exists');
      await expectQuiet(100, 'a channel without a webhook calls no receiver');
      assert.equal(receiver.calls.length, before);
    });

    test('the delivery is recorded as delivered with its try', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/log'));
      const appended = await appendEvent(s, channel.id, { n: 4 });
      const d = await eventually(async () => (await deliveries(s, channel.id)).find((x) => x.id === appended.deliveryId && x.status === 'delivered'));
      assert.equal(d.event.id, appended.eventId);
      assert.equal(d.event.type, 'message_echo');
      assert.deepEqual(d.event.body, JSON.parse(appended.body));
      assert.equal(d.attempts.length, 1);
      assert.equal(d.attempts[0].status_code, 200);
      assert.equal(d.attempts[0].url, receiver.url('/log'));
      assert.equal(d.attempts[0].response_excerpt, 'ok');
      assert.equal(d.attempts[0].error, null);
      assert.equal(d.next_attempt, null);
    });
  });
}
