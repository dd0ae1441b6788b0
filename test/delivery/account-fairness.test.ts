import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { EndpointSlots, type Ticket } from '../../src/delivery/endpoint-slots.js';
import { Receiver, sleep } from '../helpers/receiver.js';
import { channelWithWebhook } from '../helpers/factories.js';
import { eventually } from '../helpers/waits.js';

describe('Delivery slots shared by accounts', () => {
  test('accounts take turns, one account gets at most its calls and its share of held rows', () => {
    // 4 calls in all, 4 per endpoint, 2 per account; one row per claim and channel.
    const slots = new EndpointSlots<string>(4, 4, 1, 2);
    assert.equal(slots.holdPerAccount, 16, 'half of what the worker holds');
    for (let i = 1; i <= 6; i++) assert.equal(slots.add(`a${i % 3}`, 1, `ch${i % 3}`, `A${i}`), true);
    slots.add('b', 2, 'chb', 'B1');
    slots.add('b', 2, 'chb', 'B2');
    const started: Ticket<string>[] = [];
    for (let t = slots.take(); t; t = slots.take()) started.push(t);
    assert.deepEqual(
      started.map((t) => t.delivery),
      ['A1', 'B1', 'A2', 'B2'],
      'accounts alternate, then each is at its cap',
    );
    assert.equal(slots.take(), null);
    slots.finish(started[1]!);
    assert.equal(slots.take(), null, 'a slot is free, but A has all the calls it may have');
    slots.finish(started[0]!);
    assert.equal(slots.take()?.delivery, 'A3', "A's next channel in turn");
    for (let i = 7; i <= 17; i++) assert.equal(slots.add(`a${i % 3}`, 1, `ch${i % 3}`, `A${i}`), true);
    assert.equal(slots.heldByAccount(1), 16);
    assert.equal(slots.add('a9', 1, 'ch9', 'A18'), false, 'the account holds its share');
    assert.equal(slots.accountCanTakeBatch(1), false);
    assert.equal(slots.add('b', 2, 'chb', 'B3'), true, 'another account still may');
  });

  test('the channels of one account take turns', () => {
    const slots = new EndpointSlots<string>(1, 1, 8);
    for (const job of ['x1', 'x2', 'x3']) slots.add('e', 1, 'x', job);
    for (const job of ['y1', 'y2']) slots.add('e', 1, 'y', job);
    const order: string[] = [];
    for (let t = slots.take(); t; t = slots.take()) {
      order.push(t.delivery);
      slots.finish(t);
    }
    assert.deepEqual(order, ['x1', 'y1', 'x2', 'y2', 'x3']);
  });
});

for (const { dialect, skip } of await dialects()) {
  describe(`One account's hanging receivers do not hold back another account (${dialect})`, { skip }, () => {
    let s: TestServer;
    const hanging: Receiver[] = [];
    let healthy: Receiver;
    before(async () => {
      for (let i = 0; i < 4; i++) {
        const r = await Receiver.start();
        r.answer = () => 'hang';
        hanging.push(r);
      }
      healthy = await Receiver.start();
      // The receivers hang well within the timeout: their calls stay open for the whole test.
      s = await startTestServer(dialect, {
        workers: true,
        env: { WORKER_POLL_MS: '20', WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_CONCURRENCY: '64', WEBHOOK_ENDPOINT_CONCURRENCY: '16' },
      });
    });
    after(async () => {
      for (const r of hanging) await r.close();
      await healthy?.close();
      await s?.close();
    });

    /** Appends `n` events to a channel of an account in one transaction, then wakes the worker. */
    async function backlog(accountId: number, channelId: string, n: number): Promise<string[]> {
      const { services, store } = s.runtime;
      const channel = await services.channels.get(accountId, Number(channelId));
      const ids = await store.transaction(async (tx) => {
        const out: string[] = [];
        for (let i = 0; i < n; i++)
          out.push((await services.outbox.append(tx, { type: 'message_echo', channel, contactId: null, data: { channel: { id: channelId }, i } })).eventId!);
        return out;
      });
      services.outbox.wake();
      return ids;
    }

    const openCalls = () => hanging.reduce((sum, r) => sum + r.open, 0);

    test("account B's events arrive while account A's four receivers hold their calls", async () => {
      // Account A: four channels, each with its own hanging receiver and a backlog older than B's events.
      for (const [i, r] of hanging.entries()) {
        const channel = await channelWithWebhook(s, r.url(`/a${i}`));
        await backlog(s.accountId, channel.id, 100);
      }
      // A's calls pile up until they reach what A may have at once.
      let last = -1;
      await eventually(
        async () => {
          const now = openCalls();
          const settled = now >= 16 && now === last;
          last = now;
          await sleep(100);
          return settled ? true : undefined;
        },
        20_000,
        'account A holding calls',
      );

      const b = await s.newAccount();
      const channel = await channelWithWebhook({ ...s, api: b.api }, healthy.url('/b'));
      const ids = new Set(await backlog(b.accountId, channel.id, 5));
      await healthy.waitFor((calls) => ids.size === new Set(calls.map((c) => String(c.headers['x-parley-event-id']))).size, 10_000);

      // A's calls were still open when B's events arrived: B did not wait for any of them.
      const open = openCalls();
      const calls = hanging.reduce((sum, r) => sum + r.calls.length, 0);
      assert.ok(open > 0, 'account A still holds calls');
      assert.equal(open, calls, "none of account A's calls has been answered");
      assert.ok(calls < 64, `account A did not take every call slot (${calls})`);
      assert.deepEqual(new Set(healthy.eventIds()), ids);
    });
  });
}
