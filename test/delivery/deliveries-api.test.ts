import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ManualClock } from '../../src/lib/clock.js';
import { Receiver } from '../helpers/receiver.js';
import { appendEvent, channelWithWebhook, deliveries, deliveryOf } from '../helpers/factories.js';
import { eventually, expectQuiet } from '../helpers/waits.js';

const MINUTE = 60_000;

async function settled(s: TestServer, channelId: string, deliveryId: string, tries: number, status?: string): Promise<any> {
  return eventually(
    async () => {
      const d = await deliveryOf(s, channelId, deliveryId);
      return d.attempts.length === tries && (status === undefined || d.status === status) ? d : undefined;
    },
    5000,
    `${tries} tries of ${deliveryId}`,
  );
}

for (const { dialect, skip } of await dialects()) {
  describe(`Webhook deliveries API: attempt log, redelivery, webhook changes (${dialect})`, { skip }, () => {
    let s: TestServer;
    let receiver: Receiver;
    let other: Receiver;
    const clock = new ManualClock();
    before(async () => {
      receiver = await Receiver.start();
      other = await Receiver.start();
      receiver.answer = (call) => (call.path.startsWith('/fail') ? { status: 500, body: 'down' } : { status: 200, body: 'ok' });
      // Jitter off: the fake clock moves by the schedule's exact delays.
      s = await startTestServer(dialect, { clock, workers: true, env: { WORKER_POLL_MS: '20', WEBHOOK_RETRY_JITTER: '0' } });
    });
    after(async () => {
      await receiver?.close();
      await other?.close();
      await s?.close();
    });

    test('the list shows each event with its tries, newest first, filtered by status and paginated', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/ok'));
      const ok1 = await appendEvent(s, channel.id, { n: 1 });
      const ok2 = await appendEvent(s, channel.id, { n: 2 });
      await settled(s, channel.id, ok2.deliveryId!, 1, 'delivered');
      await settled(s, channel.id, ok1.deliveryId!, 1, 'delivered');
      // Point the webhook at a failing path: the next event stays pending.
      assert.equal((await s.api.patch(`/v1/channels/${channel.id}`, { webhook: { url: receiver.url('/fail') } })).status, 200);
      const bad = await appendEvent(s, channel.id, { n: 3 });
      await settled(s, channel.id, bad.deliveryId!, 1, 'pending');

      const all = await s.api.get(`/v1/channels/${channel.id}/webhook/deliveries`);
      assert.equal(all.status, 200);
      assert.equal(all.headers.get('x-total-count'), '3');
      assert.deepEqual(
        all.body.map((d: any) => d.id),
        [bad.deliveryId, ok2.deliveryId, ok1.deliveryId],
      );
      const pending = all.body[0];
      assert.deepEqual(Object.keys(pending).sort(), [
        'attempts',
        'created',
        'event',
        'id',
        'last_error',
        'last_status_code',
        'next_attempt',
        'status',
        'updated',
      ]);
      assert.equal(pending.status, 'pending');
      assert.equal(pending.last_status_code, 500);
      assert.equal(pending.attempts[0].response_excerpt, 'down');
      assert.equal(pending.attempts[0].url, receiver.url('/fail'));
      assert.deepEqual(pending.event.body.data, { channel: { id: channel.id }, n: 3 });

      const onlyPending = await s.api.get(`/v1/channels/${channel.id}/webhook/deliveries?status=pending`);
      assert.equal(onlyPending.headers.get('x-total-count'), '1');
      assert.deepEqual(
        onlyPending.body.map((d: any) => d.id),
        [bad.deliveryId],
      );
      const delivered = await s.api.get(`/v1/channels/${channel.id}/webhook/deliveries?status=delivered&max=1&offset=1`);
      assert.equal(delivered.headers.get('x-total-count'), '2');
      assert.deepEqual(
        delivered.body.map((d: any) => d.id),
        [ok1.deliveryId],
      );
      const failed = await s.api.get(`/v1/channels/${channel.id}/webhook/deliveries?status=failed`);
      assert.equal(failed.headers.get('x-total-count'), '0');
      assert.deepEqual(failed.body, []);
    });

    test('bad list parameters answer 422 naming the parameter; foreign and unknown ids answer 404', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/ok'));
      const status = await s.api.get(`/v1/channels/${channel.id}/webhook/deliveries?status=sent`);
      assert.equal(status.status, 422);
      assert.equal(status.body.errors[0].field, 'status');
      assert.equal(status.body.errors[0].message, "Property 'status' with value 'sent' does not match any allowed value: pending, delivered, failed, dropped.");
      for (const [query, field] of [
        ['max=101', 'max'],
        ['max=0', 'max'],
        ['offset=-1', 'offset'],
      ]) {
        const res = await s.api.get(`/v1/channels/${channel.id}/webhook/deliveries?${query}`);
        assert.equal(res.status, 422, query);
        assert.equal(res.body.errors[0].field, field);
      }
      const stranger = await s.newAccount();
      assert.equal((await stranger.api.get(`/v1/channels/${channel.id}/webhook/deliveries`)).status, 404);
      const event = await appendEvent(s, channel.id);
      assert.equal((await stranger.api.post(`/v1/channels/${channel.id}/webhook/deliveries/${event.deliveryId}/redeliver`)).status, 404);
      assert.equal((await s.api.get('/v1/channels/999999/webhook/deliveries')).status, 404);
      assert.equal((await s.api.get('/v1/channels/abc/webhook/deliveries')).status, 404);
      assert.equal((await s.api.post(`/v1/channels/${channel.id}/webhook/deliveries/123456/redeliver`)).status, 404);
      // A delivery of another channel of the same account is not found under this one.
      const second = await channelWithWebhook(s, receiver.url('/ok'));
      assert.equal((await s.api.post(`/v1/channels/${second.id}/webhook/deliveries/${event.deliveryId}/redeliver`)).status, 404);
      assert.equal((await s.api.get(`/v1/channels/${channel.id}/webhook/deliveries`, { authorization: '' })).status, 401);
    });

    test('redeliver sends a delivered event again at once, with the same event id, as a new cycle', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/ok'));
      const event = await appendEvent(s, channel.id, { n: 'again' });
      await settled(s, channel.id, event.deliveryId!, 1, 'delivered');
      const res = await s.api.post(`/v1/channels/${channel.id}/webhook/deliveries/${event.deliveryId}/redeliver`);
      assert.equal(res.status, 202);
      assert.equal(res.body.id, event.deliveryId);
      assert.equal(res.body.status, 'pending');
      const d = await settled(s, channel.id, event.deliveryId!, 2, 'delivered');
      assert.equal(d.attempts[1].status_code, 200);
      const calls = receiver.calls.filter((c) => c.headers['x-parley-event-id'] === event.eventId);
      assert.equal(calls.length, 2);
      assert.ok(calls[1]!.raw.equals(calls[0]!.raw));
      assert.equal(calls[1]!.headers['x-parley-attempt'], '1');
    });

    test('redeliver brings back a failed delivery and starts its retry schedule over', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/fail'));
      const event = await appendEvent(s, channel.id);
      await settled(s, channel.id, event.deliveryId!, 1);
      for (const [i, minutes] of [1, 5, 20, 60, 180, 480].entries()) {
        clock.advance(minutes * MINUTE);
        s.runtime.services.outbox.wake();
        await settled(s, channel.id, event.deliveryId!, i + 2);
      }
      await settled(s, channel.id, event.deliveryId!, 7, 'failed');
      // The receiver is fixed; the client asks for the event again.
      await s.api.patch(`/v1/channels/${channel.id}`, { webhook: { url: receiver.url('/ok') } });
      const res = await s.api.post(`/v1/channels/${channel.id}/webhook/deliveries/${event.deliveryId}/redeliver`);
      assert.equal(res.status, 202);
      const d = await settled(s, channel.id, event.deliveryId!, 8, 'delivered');
      assert.equal(d.attempts[7].url, receiver.url('/ok'));
    });

    test('redeliver on a channel whose webhook was removed answers 422', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/ok'));
      const event = await appendEvent(s, channel.id);
      await settled(s, channel.id, event.deliveryId!, 1, 'delivered');
      await s.api.patch(`/v1/channels/${channel.id}`, { webhook: null });
      const res = await s.api.post(`/v1/channels/${channel.id}/webhook/deliveries/${event.deliveryId}/redeliver`);
      assert.equal(res.status, 422);
      assert.equal(res.body.errors[0].message, 'The channel has no webhook to deliver to.');
    });

    test('removing the webhook drops its pending deliveries: they are never sent', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/fail'));
      const event = await appendEvent(s, channel.id);
      await settled(s, channel.id, event.deliveryId!, 1, 'pending');
      const res = await s.api.patch(`/v1/channels/${channel.id}`, { webhook: null });
      assert.equal(res.status, 200);
      const d = await deliveryOf(s, channel.id, event.deliveryId!);
      assert.equal(d.status, 'dropped');
      assert.equal(d.next_attempt, null);
      assert.equal(d.last_error, 'The webhook was removed.');
      const dropped = await s.api.get(`/v1/channels/${channel.id}/webhook/deliveries?status=dropped`);
      assert.deepEqual(
        dropped.body.map((x: any) => x.id),
        [event.deliveryId],
      );
      clock.advance(24 * 60 * MINUTE);
      s.runtime.services.outbox.wake();
      await expectQuiet(150, 'a dropped delivery is not tried again');
      assert.equal(receiver.calls.filter((c) => c.headers['x-parley-event-id'] === event.eventId).length, 1);
      // A new webhook does not bring the dropped one back.
      await s.api.patch(`/v1/channels/${channel.id}`, { webhook: { url: receiver.url('/ok') } });
      clock.advance(24 * 60 * MINUTE);
      s.runtime.services.outbox.wake();
      await expectQuiet(150, 'a new webhook does not bring the dropped delivery back');
      assert.equal(receiver.calls.filter((c) => c.headers['x-parley-event-id'] === event.eventId).length, 1);
    });

    test('a delivery claimed after its webhook was replaced is dropped, not sent to the new one', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/ok'));
      // Written directly, as if the webhook changed between the event's commit and its claim.
      const { services, store } = s.runtime;
      const current = await services.channels.get(s.accountId, Number(channel.id));
      const stale = { ...current, webhook: { ...current.webhook!, id: '42' } };
      const event = await store.transaction((tx) =>
        services.outbox.append(tx, { type: 'message_echo', channel: stale, contactId: null, data: { channel: { id: channel.id } } }),
      );
      services.outbox.wake();
      const d = await eventually(async () => {
        const x = await deliveryOf(s, channel.id, event.deliveryId!);
        return x.status === 'dropped' ? x : undefined;
      });
      assert.equal(d.attempts.length, 0);
      assert.equal(receiver.calls.filter((c) => c.headers['x-parley-event-id'] === event.eventId).length, 0);
    });

    test('changing the webhook URL sends the pending deliveries to the new URL', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/fail'));
      const event = await appendEvent(s, channel.id);
      await settled(s, channel.id, event.deliveryId!, 1, 'pending');
      const res = await s.api.patch(`/v1/channels/${channel.id}`, { webhook: { url: other.url('/moved') } });
      assert.equal(res.status, 200);
      assert.equal(res.body.webhook.secret, channel.secret, 'a new url keeps the secret');
      clock.advance(MINUTE);
      s.runtime.services.outbox.wake();
      await other.waitFor((calls) => calls.some((c) => c.headers['x-parley-event-id'] === event.eventId));
      const d = await settled(s, channel.id, event.deliveryId!, 2, 'delivered');
      assert.deepEqual(
        d.attempts.map((a: any) => a.url),
        [receiver.url('/fail'), other.url('/moved')],
      );
    });

    test('deleting the channel removes its deliveries and tries', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/fail'));
      const event = await appendEvent(s, channel.id);
      await settled(s, channel.id, event.deliveryId!, 1, 'pending');
      assert.equal((await s.api.delete(`/v1/channels/${channel.id}`)).status, 204);
      const { db } = s.runtime.store;
      assert.equal((await db.selectFrom('deliveries').select('id').where('id', '=', Number(event.deliveryId)).execute()).length, 0);
      assert.equal((await db.selectFrom('delivery_attempts').select('id').where('delivery_id', '=', Number(event.deliveryId)).execute()).length, 0);
      clock.advance(MINUTE);
      s.runtime.services.outbox.wake();
      await expectQuiet(100, "a deleted channel's pending delivery is not tried again");
      assert.equal(receiver.calls.filter((c) => c.headers['x-parley-event-id'] === event.eventId).length, 1);
    });

    test('the deliveries of an idle channel list empty', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/ok'));
      assert.deepEqual(await deliveries(s, channel.id), []);
    });
  });
}
