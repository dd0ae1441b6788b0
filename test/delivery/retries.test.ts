import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ManualClock } from '../../src/lib/clock.js';
import { Receiver } from '../helpers/receiver.js';
import { appendEvent, channelWithWebhook, deliveryOf } from '../helpers/factories.js';
import { eventually, expectQuiet } from '../helpers/waits.js';

const MINUTE = 60_000;

/** Waits until the delivery's tries are all recorded, so the clock may move on. */
async function triesRecorded(s: TestServer, channelId: string, deliveryId: string, n: number): Promise<any> {
  return eventually(
    async () => {
      const d = await deliveryOf(s, channelId, deliveryId);
      // The try and the row's new state are written in one transaction and listed from one snapshot.
      return d.attempts.length === n ? d : undefined;
    },
    5000,
    `${n} tries of ${deliveryId}`,
  );
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

for (const { dialect, skip } of await dialects()) {
  describe(`Webhook retries on the default schedule, fake clock (${dialect})`, { skip }, () => {
    let s: TestServer;
    let receiver: Receiver;
    const clock = new ManualClock();
    before(async () => {
      receiver = await Receiver.start();
      receiver.answer = (call) => {
        const status = Number(/\/status\/(\d+)/.exec(call.path)?.[1] ?? 200);
        return call.path.startsWith('/big') ? { status: 500, body: 'x'.repeat(10_000) } : { status, body: `answer ${status}` };
      };
      // The schedule exactly (no jitter), so that the fake clock can stand 1 ms before each try.
      s = await startTestServer(dialect, { clock, workers: true, env: { WORKER_POLL_MS: '20', WEBHOOK_RETRY_JITTER: '0' } });
    });
    after(async () => {
      await receiver?.close();
      await s?.close();
    });

    test('a failing receiver is tried again 1, 5, 20, 60, 180 and 480 minutes after each try, then the delivery fails', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/status/500'));
      const event = await appendEvent(s, channel.id, { n: 'schedule' });
      const callsOf = () => receiver.calls.filter((c) => c.headers['x-parley-event-id'] === event.eventId);
      await receiver.waitFor(() => callsOf().length === 1);
      await triesRecorded(s, channel.id, event.deliveryId!, 1);

      const delays = [1, 5, 20, 60, 180, 480].map((m) => m * MINUTE);
      for (const [i, delay] of delays.entries()) {
        clock.advance(delay - 1);
        s.runtime.services.outbox.wake();
        await expectQuiet(120, 'no try 1 ms before it is due');
        assert.equal(callsOf().length, i + 1, `no try ${i + 2} 1 ms before it is due`);
        clock.advance(1);
        s.runtime.services.outbox.wake();
        await receiver.waitFor(() => callsOf().length === i + 2);
        await triesRecorded(s, channel.id, event.deliveryId!, i + 2);
      }

      const d = await eventually(async () => {
        const x = await deliveryOf(s, channel.id, event.deliveryId!);
        return x.status === 'failed' ? x : undefined;
      });
      assert.equal(d.attempts.length, 7);
      assert.equal(d.next_attempt, null);
      assert.equal(d.last_status_code, 500);
      assert.equal(d.last_error, 'The receiver answered 500.');
      const times = d.attempts.map((a: any) => Date.parse(a.attempted));
      assert.deepEqual(
        times.slice(1).map((t: number, i: number) => t - times[i]),
        delays,
      );
      for (const a of d.attempts) assert.equal(a.status_code, 500);

      // Every try carried the same event id and counted itself.
      const calls = callsOf();
      assert.deepEqual(
        calls.map((c) => c.headers['x-parley-attempt']),
        ['1', '2', '3', '4', '5', '6', '7'],
      );
      assert.ok(
        calls.every((c) => c.raw.equals(calls[0]!.raw)),
        'every try sends the same bytes',
      );

      // Discarded: nothing more, however long we wait.
      clock.advance(30 * 24 * 60 * MINUTE);
      s.runtime.services.outbox.wake();
      await expectQuiet(150, 'a discarded delivery is not tried again');
      assert.equal(callsOf().length, 7);
    });

    test('any 2xx ends the delivery; 3xx, 4xx and 5xx are tried again after a minute', async () => {
      const cases = [200, 201, 202, 204, 299, 301, 400, 404, 410, 429, 500, 503];
      const started = clock.now();
      const events = [];
      for (const status of cases) {
        const channel = await channelWithWebhook(s, receiver.url(`/status/${status}`));
        events.push({ status, channel, event: await appendEvent(s, channel.id, { status }) });
      }
      for (const { status, channel, event } of events) {
        const d = await triesRecorded(s, channel.id, event.deliveryId!, 1);
        assert.equal(d.attempts[0].status_code, status);
        if (status >= 200 && status < 300) {
          assert.equal(d.status, 'delivered', `${status} ends it`);
          assert.equal(d.next_attempt, null);
        } else {
          assert.equal(d.status, 'pending', `${status} is retried`);
          assert.equal(Date.parse(d.next_attempt), started + MINUTE);
          assert.equal(d.attempts[0].response_excerpt, `answer ${status}`);
        }
      }
    });

    test('a refused connection is a failed try, retried', async () => {
      const port = await closedPort();
      const channel = await channelWithWebhook(s, `http://127.0.0.1:${port}/gone`);
      const event = await appendEvent(s, channel.id);
      const d = await triesRecorded(s, channel.id, event.deliveryId!, 1);
      assert.equal(d.status, 'pending');
      assert.equal(d.attempts[0].status_code, null);
      assert.match(d.attempts[0].error, /ECONNREFUSED/);
      assert.equal(Date.parse(d.next_attempt), clock.now() + MINUTE);
    });

    test('the response excerpt keeps at most 4096 bytes of the answer', async () => {
      const channel = await channelWithWebhook(s, receiver.url('/big'));
      const event = await appendEvent(s, channel.id);
      const d = await triesRecorded(s, channel.id, event.deliveryId!, 1);
      assert.equal(d.attempts[0].response_excerpt, 'x'.repeat(4096));
      assert.equal(typeof d.attempts[0].duration_ms, 'number');
    });
  });

  describe(`Webhook retries: configured schedule and timeout (${dialect})`, { skip }, () => {
    let s: TestServer;
    let receiver: Receiver;
    const clock = new ManualClock();
    before(async () => {
      receiver = await Receiver.start();
      s = await startTestServer(dialect, {
        clock,
        workers: true,
        env: { WORKER_POLL_MS: '20', WEBHOOK_RETRY_SCHEDULE: '5,7.5', WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_RETRY_JITTER: '0' },
      });
    });
    after(async () => {
      await receiver?.close();
      await s?.close();
    });

    test('WEBHOOK_RETRY_SCHEDULE sets the delays and the number of tries', async () => {
      receiver.answer = () => ({ status: 503 });
      const channel = await channelWithWebhook(s, receiver.url('/sched'));
      const event = await appendEvent(s, channel.id);
      await triesRecorded(s, channel.id, event.deliveryId!, 1);
      for (const [i, delay] of [5000, 7500].entries()) {
        clock.advance(delay - 1);
        s.runtime.services.outbox.wake();
        await expectQuiet(100, 'no try 1 ms before the configured delay');
        assert.equal((await deliveryOf(s, channel.id, event.deliveryId!)).attempts.length, i + 1);
        clock.advance(1);
        s.runtime.services.outbox.wake();
        await triesRecorded(s, channel.id, event.deliveryId!, i + 2);
      }
      const d = await eventually(async () => {
        const x = await deliveryOf(s, channel.id, event.deliveryId!);
        return x.status === 'failed' ? x : undefined;
      });
      assert.equal(d.attempts.length, 3);
    });

    test('no answer within WEBHOOK_TIMEOUT_MS is a failed try: the call is cut off and retried', async () => {
      receiver.answer = () => 'hang';
      const channel = await channelWithWebhook(s, receiver.url('/slow'));
      const event = await appendEvent(s, channel.id);
      const d = await triesRecorded(s, channel.id, event.deliveryId!, 1);
      assert.equal(d.status, 'pending');
      assert.equal(d.attempts[0].status_code, null);
      assert.match(d.attempts[0].error, /Timeout: no complete answer within 300 ms/);
      assert.ok(d.attempts[0].duration_ms >= 290 && d.attempts[0].duration_ms < 3000, `duration ${d.attempts[0].duration_ms}`);
      assert.equal(Date.parse(d.next_attempt), clock.now() + 5000);
      await eventually(async () => (receiver.open === 0 ? true : undefined), 2000, 'the hanging call closed');
    });
  });

  describe(`Webhook retries: jitter and the receiver's Retry-After (${dialect})`, { skip }, () => {
    let s: TestServer;
    let receiver: Receiver;
    const clock = new ManualClock();
    before(async () => {
      receiver = await Receiver.start();
      receiver.answer = (call) => {
        const after = /\/after\/([^/]+)/.exec(call.path)?.[1];
        return after ? { status: 503, headers: { 'retry-after': decodeURIComponent(after) } } : { status: 500 };
      };
      // The default jitter (a tenth) and the default schedule.
      s = await startTestServer(dialect, { clock, workers: true, env: { WORKER_POLL_MS: '20' } });
    });
    after(async () => {
      await receiver?.close();
      await s?.close();
    });

    test('jitter only lengthens a delay, by at most a tenth, and spreads deliveries that failed together', async () => {
      const started = clock.now();
      const channel = await channelWithWebhook(s, receiver.url('/down'));
      const events = [];
      for (let i = 0; i < 12; i++) events.push(await appendEvent(s, channel.id, { i }));
      const nexts = [];
      for (const event of events) {
        const d = await triesRecorded(s, channel.id, event.deliveryId!, 1);
        assert.equal(d.status, 'pending');
        nexts.push(Date.parse(d.next_attempt) - started);
      }
      for (const next of nexts) assert.ok(next >= MINUTE && next <= MINUTE * 1.1, `retried ${next} ms after the try`);
      assert.ok(new Set(nexts).size > 1, `12 deliveries that failed together are not all retried at once: ${nexts.join(', ')}`);
    });

    test('a Retry-After longer than the delay is waited for; a shorter one changes nothing; a longer one than the schedule is capped', async () => {
      const cases: Array<[string, (next: number) => boolean, string]> = [
        ['600', (next) => next === 600_000, 'exactly 600 s'],
        ['5', (next) => next >= MINUTE && next <= MINUTE * 1.1, 'the schedule (1 minute, jittered)'],
        ['999999', (next) => next === 480 * MINUTE, "the schedule's longest delay, 480 minutes"],
        [new Date(Date.now() + 30 * MINUTE).toUTCString(), (next) => next > 29 * MINUTE && next <= 30 * MINUTE, 'about 30 minutes (an HTTP date)'],
      ];
      for (const [value, ok, what] of cases) {
        const started = clock.now();
        const channel = await channelWithWebhook(s, receiver.url(`/after/${encodeURIComponent(value)}`));
        const event = await appendEvent(s, channel.id);
        const d = await triesRecorded(s, channel.id, event.deliveryId!, 1);
        assert.equal(d.attempts[0].status_code, 503);
        const next = Date.parse(d.next_attempt) - started;
        assert.ok(ok(next), `Retry-After: ${value} gives ${what}, not ${next} ms`);
      }
    });
  });
}
