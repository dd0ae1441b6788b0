import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { EndpointSlots, type Ticket } from '../../src/delivery/endpoint-slots.js';
import { Receiver } from '../helpers/receiver.js';
import { appendEvent, channelWithWebhook } from '../helpers/factories.js';
import { expectQuiet } from '../helpers/waits.js';

describe('Endpoint slots', () => {
  test('at most perEndpoint jobs run per endpoint and total overall; endpoints take turns', () => {
    const slots = new EndpointSlots<string>(3, 2, 1);
    // One account; each endpoint is one lane of it.
    const add = (endpoint: string, job: string) => slots.add(endpoint, 1, endpoint, job);
    const running: Ticket<string>[] = [];
    const take = () => {
      const t = slots.take();
      if (t) running.push(t);
      return t;
    };
    const finish = (endpoint: string) =>
      slots.finish(
        running.splice(
          running.findIndex((t) => t.endpoint === endpoint),
          1,
        )[0]!,
      );
    assert.equal(slots.holdPerEndpoint, 4, 'its cap plus two batches');
    for (const job of ['a1', 'a2', 'a3', 'a4']) assert.equal(add('A', job), true);
    assert.equal(add('A', 'a5'), false, 'an endpoint holds no more than that');
    assert.equal(slots.canTakeBatch('A'), false);
    for (const job of ['b1', 'b2']) add('B', job);
    const started = [take(), take(), take()].map((t) => t?.delivery);
    assert.deepEqual(started, ['a1', 'b1', 'a2']);
    assert.equal(take(), null, 'total cap reached');
    finish('A');
    assert.equal(take()?.delivery, 'b2', "B's turn");
    finish('B');
    assert.equal(take()?.delivery, 'a3');
    assert.equal(take(), null);
    assert.equal(slots.held('A'), 3);
    assert.equal(slots.canTakeBatch('A'), true, 'room for one more batch');
    assert.equal(add('A', 'a5'), true);
    assert.equal(slots.canTakeBatch('A'), false);
    finish('A');
    assert.equal(slots.canTakeBatch('A'), true);
    assert.deepEqual(slots.drainWaiting(), ['a4', 'a5']);
  });
});

for (const { dialect, skip } of await dialects()) {
  describe(`A receiver that hangs does not hold back other channels (${dialect})`, { skip }, () => {
    let s: TestServer;
    let hanging: Receiver;
    let healthy: Receiver;
    before(async () => {
      hanging = await Receiver.start();
      hanging.answer = () => 'hang';
      healthy = await Receiver.start();
      s = await startTestServer(dialect, { workers: true, env: { WORKER_POLL_MS: '20', WEBHOOK_CONCURRENCY: '6', WEBHOOK_ENDPOINT_CONCURRENCY: '2' } });
    });
    after(async () => {
      await hanging?.close();
      await healthy?.close();
      await s?.close();
    });

    test('the hanging receiver gets at most its cap of calls; the other channel gets all its events meanwhile', async () => {
      // Three channels share the dead receiver; their backlog is older than the healthy channel's.
      const dead = [];
      for (const path of ['/d1', '/d2', '/d3']) dead.push(await channelWithWebhook(s, hanging.url(path)));
      for (let i = 0; i < 20; i++) for (const channel of dead) await appendEvent(s, channel.id, { i });
      await hanging.waitForCount(2);
      const alive = await channelWithWebhook(s, healthy.url('/alive'));
      const ids = new Set<string>();
      for (let i = 0; i < 40; i++) ids.add((await appendEvent(s, alive.id, { i })).eventId);

      const started = Date.now();
      await healthy.waitFor((calls) => new Set(calls.map((c) => String(c.headers['x-parley-event-id']))).size === ids.size, 5000);
      assert.ok(Date.now() - started < 5000);
      assert.deepEqual(new Set(healthy.eventIds()), ids);
      await expectQuiet(100, 'the hanging endpoint gets no third call at once');
      assert.equal(hanging.maxOpen, 2, 'the per-endpoint cap holds across the channels of that endpoint');
      assert.equal(hanging.calls.length, 2);
      assert.equal(healthy.calls.length, 40, 'each event once');
    });
  });
}

for (const { dialect, skip } of await dialects()) {
  describe(`A delivery waiting for its receiver's slot follows a changed URL (${dialect})`, { skip }, () => {
    let s: TestServer;
    let slow: Receiver;
    let moved: Receiver;
    before(async () => {
      slow = await Receiver.start();
      slow.answer = () => 'hang';
      moved = await Receiver.start();
      s = await startTestServer(dialect, { workers: true, env: { WORKER_POLL_MS: '20', WEBHOOK_ENDPOINT_CONCURRENCY: '1', WEBHOOK_TIMEOUT_MS: '1500' } });
    });
    after(async () => {
      await slow?.close();
      await moved?.close();
      await s?.close();
    });

    test('the second event, held while the first call hangs, goes to the new URL', async () => {
      const channel = await channelWithWebhook(s, slow.url('/old'));
      const first = await appendEvent(s, channel.id, { n: 1 });
      await slow.waitForCount(1);
      const second = await appendEvent(s, channel.id, { n: 2 });
      await expectQuiet(100, 'the second event is held, not sent to the old URL, while the first call hangs');
      assert.equal((await s.api.patch(`/v1/channels/${channel.id}`, { webhook: { url: moved.url('/new') } })).status, 200);
      await moved.waitFor((calls) => calls.some((c) => c.headers['x-parley-event-id'] === second.eventId), 10_000);
      assert.equal(slow.calls.length, 1, 'only the first call went to the old URL');
      assert.deepEqual(slow.eventIds(), [first.eventId]);
    });
  });
}

for (const { dialect, skip } of await dialects()) {
  describe(`A receiver's calls at once follow its answers (${dialect})`, { skip }, () => {
    let s: TestServer;
    let receiver: Receiver;
    before(async () => {
      receiver = await Receiver.start();
      s = await startTestServer(dialect, { workers: true, env: { WORKER_POLL_MS: '20', WEBHOOK_CONCURRENCY: '32', WEBHOOK_ENDPOINT_CONCURRENCY: '8' } });
    });
    after(async () => {
      await receiver?.close();
      await s?.close();
    });

    test('a healthy receiver gets up to the cap; once it answers 503 it gets one or two calls at once', async () => {
      const openAtCall: number[] = [];
      receiver.answer = () => {
        openAtCall.push(receiver.open);
        return { status: openAtCall.length <= 80 ? 200 : 503, delayMs: 30 };
      };
      const created = await channelWithWebhook(s, receiver.url('/hook'));
      // A backlog written at once, so that the receiver always has work waiting.
      const { services, store } = s.runtime;
      const channel = await services.channels.get(s.accountId, Number(created.id));
      await store.transaction(async (tx) => {
        for (let i = 0; i < 200; i++)
          await services.outbox.append(tx, { type: 'message_echo', channel, contactId: null, data: { channel: { id: channel.id }, i } });
      });
      services.outbox.wake();
      await receiver.waitForCount(200, 30_000);
      const healthy = Math.max(...openAtCall.slice(0, 80));
      const failing = Math.max(...openAtCall.slice(120, 200));
      assert.equal(healthy, 8, `the cap while it answers well (saw ${healthy})`);
      assert.ok(failing <= 2, `at most two calls at once while it fails (saw ${failing})`);
    });
  });
}
