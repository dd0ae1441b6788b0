import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, openTestStore, type TestDatabase } from '../helpers/databases.js';
import type { Store } from '../../src/store/store.js';
import type { ClaimRequest } from '../../src/store/delivery-queue.js';
import { pickFair, type ScannedRow } from '../../src/store/delivery-rows.js';
import { seedChannel } from '../helpers/store-rows.js';

describe('pickFair', () => {
  const rows: ScannedRow[] = [
    [1, 10, 100],
    [2, 10, 100],
    [3, 11, 100],
    [4, 10, 100],
    [5, 12, 200],
    [6, 12, 200],
    [7, 12, 200],
  ];

  test('takes at most perChannel of a channel and perAccount of an account, in scan order, up to the limit', () => {
    assert.deepEqual(pickFair(rows, { perChannel: 2, perAccount: 3, limit: 10 }), [1, 2, 3, 5, 6]);
    assert.deepEqual(pickFair(rows, { perChannel: 3, perAccount: 2, limit: 10 }), [1, 2, 5, 6]);
    assert.deepEqual(pickFair(rows, { perChannel: 2, perAccount: 3, limit: 4 }), [1, 2, 3, 5]);
  });

  test('an account alone in the rows seen is not held to perAccount', () => {
    assert.deepEqual(pickFair(rows.slice(0, 4), { perChannel: 3, perAccount: 1, limit: 10 }), [1, 2, 3, 4]);
  });

  test('no rows, nothing picked', () => {
    assert.deepEqual(pickFair([], { perChannel: 1, perAccount: 1, limit: 1 }), []);
  });
});

/** The claim on each store: which due rows it leases, and what it answers for them. */
for (const { dialect, skip } of await dialects()) {
  describe(`Delivery claim (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let nextId = 1_000;
    let nextLease = 1;
    before(async () => {
      ({ db, store } = await openTestStore(dialect));
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    const channel = (account: number, channel: number) =>
      seedChannel(store, { account, channel }, 'service_chat', { webhook_id: 7, webhook_url: 'http://127.0.0.1:9/hook' });

    /** A pending delivery due at `dueAt`, of an event with this correlation id; answers the delivery id. */
    async function due(accountId: number, channelId: number, dueAt: number, correlationId: string | null = null): Promise<number> {
      const eventId = nextId++;
      const id = nextId++;
      await store.events.insertEvent({
        id: eventId,
        account_id: accountId,
        channel_id: channelId,
        contact_id: null,
        message_id: null,
        type: 'message_echo',
        body: JSON.stringify({ event: 'message_echo', n: id }),
        created_at: dueAt,
        correlation_id: correlationId,
      });
      await store.events.insertDelivery({
        id,
        event_id: eventId,
        account_id: accountId,
        channel_id: channelId,
        webhook_id: 7,
        status: 'pending',
        attempts: 0,
        next_attempt_at: dueAt,
        locked_until: null,
        last_status_code: null,
        last_error: null,
        created_at: dueAt,
        updated_at: dueAt,
      });
      return id;
    }

    function request(over: Partial<ClaimRequest>): ClaimRequest {
      return {
        now: 10_000,
        leaseNow: 10_000,
        leaseUntil: 70_000,
        leaseId: nextLease++,
        instanceId: store.idInstance(),
        limit: 100,
        perChannel: 100,
        perAccount: 100,
        scanLimit: 100,
        excludeChannels: [],
        excludeAccounts: [],
        ...over,
      };
    }

    async function claimIds(over: Partial<ClaimRequest>): Promise<number[]> {
      return (await store.deliveryQueue.claim(request(over))).map((d) => d.id);
    }

    async function drain(): Promise<void> {
      // Everything still due, leased or not, is leased for good, so each test starts from its own rows.
      await store.deliveryQueue.claim(
        request({ leaseNow: Number.MAX_SAFE_INTEGER - 1, leaseUntil: Number.MAX_SAFE_INTEGER, limit: 10_000, scanLimit: 10_000 }),
      );
    }

    test('the earliest due rows, at most perChannel of each channel, in id order, with their event', async () => {
      await channel(1, 11);
      await channel(1, 12);
      const a1 = await due(1, 11, 1, 'req-1');
      const a2 = await due(1, 11, 2);
      const b1 = await due(1, 12, 3);
      await due(1, 11, 4);
      const b2 = await due(1, 12, 5);
      await due(1, 11, 20_000); // not due yet
      const claimed = await store.deliveryQueue.claim(request({ perChannel: 2 }));
      assert.deepEqual(
        claimed.map((d) => d.id),
        [a1, a2, b1, b2],
      );
      const first = claimed[0]!;
      assert.equal(first.eventType, 'message_echo');
      assert.equal(first.correlationId, 'req-1');
      assert.equal(first.accountId, 1);
      assert.equal(first.channelId, 11);
      assert.equal(first.webhookId, 7);
      assert.equal(first.attempts, 0);
      assert.equal(JSON.parse(first.body).n, a1);
      assert.equal(claimed[1]!.correlationId, null);
      // The leased rows are not claimed again; the one left of channel 11 is.
      assert.equal((await claimIds({})).length, 1);
      await drain();
    });

    test('perAccount holds an account back when others share the rows seen, not when it is alone', async () => {
      await channel(2, 21);
      await channel(2, 22);
      await channel(3, 31);
      const x1 = await due(2, 21, 10);
      const x2 = await due(2, 22, 11);
      await due(2, 21, 12);
      const y1 = await due(3, 31, 13);
      assert.deepEqual(await claimIds({ perAccount: 2 }), [x1, x2, y1]);
      await drain();
      const z = [await due(2, 21, 14), await due(2, 22, 15), await due(2, 21, 16)];
      assert.deepEqual(await claimIds({ perAccount: 2 }), z);
      await drain();
    });

    test('only scanLimit rows are looked at, limit are taken, and excluded channels and accounts are passed over', async () => {
      await channel(4, 41);
      await channel(4, 42);
      await channel(5, 51);
      const r = [await due(4, 41, 20), await due(4, 42, 21), await due(5, 51, 22), await due(4, 41, 23)];
      assert.deepEqual(await claimIds({ scanLimit: 2, leaseUntil: 10_001 }), r.slice(0, 2));
      assert.deepEqual(await claimIds({ leaseNow: 10_002, limit: 3, leaseUntil: 10_003 }), r.slice(0, 3));
      assert.deepEqual(await claimIds({ leaseNow: 10_004, excludeChannels: [41], leaseUntil: 10_005 }), [r[1], r[2]]);
      assert.deepEqual(await claimIds({ leaseNow: 10_006, excludeAccounts: [4] }), [r[2]]);
      await drain();
    });

    test('a lease that ran out is claimed again, and only the new lease completes the row', async () => {
      await channel(6, 61);
      const id = await due(6, 61, 30);
      const old = request({ leaseUntil: 10_500 });
      assert.deepEqual(
        (await store.deliveryQueue.claim(old)).map((d) => d.id),
        [id],
      );
      assert.deepEqual(await claimIds({ leaseNow: 10_400 }), []);
      const fresh = request({ leaseNow: 10_600 });
      assert.deepEqual(
        (await store.deliveryQueue.claim(fresh)).map((d) => d.id),
        [id],
      );
      const outcome = (leaseId: number, code: number) => ({
        id,
        leaseId,
        status: 'delivered' as const,
        attempts: 1,
        nextAttemptAt: 10_700,
        lastStatusCode: code,
        lastError: null,
        updatedAt: 10_700,
        attempt: null,
      });
      await store.deliveryQueue.complete([outcome(old.leaseId, 500)]);
      await store.deliveryQueue.complete([outcome(fresh.leaseId, 204)]);
      const row = await store.db.selectFrom('deliveries').select(['status', 'last_status_code', 'locked_until']).where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.status, 'delivered');
      assert.equal(Number(row.last_status_code), 204);
      assert.equal(row.locked_until, null);
    });
  });
}
