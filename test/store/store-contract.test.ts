import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, dialects, openTestStore, type TestDatabase } from '../helpers/databases.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { contactRow } from '../helpers/store-rows.js';

/** One contract, both dialects: what the domain relies on from any store. */
for (const { dialect, skip } of await dialects()) {
  describe(`Store contract (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      ({ db, store } = await openTestStore(dialect));
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    const account = (id: number) => ({ id, name: `a${id}`, plan: 'free', hourly_limit: null, concurrency_limit: null, created_at: Date.now() });
    const channel = (id: number, accountId: number) => ({
      id,
      account_id: accountId,
      type: 'service_chat',
      name: `c${id}`,
      mode: 'production',
      config: '{}',
      secrets: null,
      webhook_id: null,
      webhook_url: null,
      webhook_secret: null,
      webhook_ssl_verification: 1,
      settings: '{}',
      created_at: id,
      updated_at: id,
    });

    test('migrations are idempotent and ids round-trip as numbers', async () => {
      assert.deepEqual(await store.migrate(), []);
      await store.accounts.insert(account(2 ** 52 + 7));
      const got = await store.accounts.find(2 ** 52 + 7);
      assert.equal(got?.id, 2 ** 52 + 7);
      assert.equal(typeof got?.created_at, 'number');
    });

    test('a failed transaction leaves nothing behind', async () => {
      await store.accounts.insert(account(100));
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.channels.insert(channel(101, 100));
          await tx.channels.insert(channel(101, 100));
        }),
      );
      assert.equal(await store.channels.find(100, 101), undefined);
      await store.transaction(async (tx) => tx.channels.insert(channel(102, 100)));
      assert.ok(await store.channels.find(100, 102));
    });

    test("contacts found by several values at once: only the channel's, only the account's, only those named", async () => {
      await store.accounts.insert(account(900));
      await store.accounts.insert(account(901));
      await store.channels.insert(channel(910, 900));
      await store.channels.insert(channel(911, 900));
      await store.channels.insert(channel(912, 901));
      const contact = (id: number, channelId: number, accountId: number, phone: string) =>
        contactRow({ id, account_id: accountId, channel_id: channelId, phone_number: phone });
      await store.contacts.insert(contact(920, 910, 900, '+15550001'));
      await store.contacts.insert(contact(921, 910, 900, '+15550002'));
      await store.contacts.insert(contact(922, 911, 900, '+15550003'));
      await store.contacts.insert(contact(923, 912, 901, '+15550004'));
      const ids = (rows: Array<{ id: number }>) => rows.map((r) => r.id).sort();
      assert.deepEqual(ids(await store.contacts.findManyBy(900, 910, 'phone_number', ['+15550001', '+15550002', '+15550003', '+15550009'])), [920, 921]);
      assert.deepEqual(ids(await store.contacts.findManyBy(900, 910, 'id', [921, 922, 923])), [921]);
      assert.deepEqual(await store.contacts.findManyBy(900, 912, 'phone_number', ['+15550004']), [], "another account's channel");
      assert.deepEqual(await store.contacts.findManyBy(900, 910, 'phone_number', []), []);
    });

    test('channel reads are scoped to the account', async () => {
      await store.accounts.insert(account(200));
      await store.accounts.insert(account(201));
      await store.channels.insert(channel(210, 200));
      assert.equal(await store.channels.find(201, 210), undefined);
      assert.equal(await store.channels.delete(201, 210), false);
      assert.equal((await store.channels.list(201, 10, 0)).total, 0);
      assert.equal((await store.channels.list(200, 10, 0)).total, 1);
      assert.equal(await store.channels.delete(200, 210), true);
    });

    test('deleting a channel removes what belongs to it', async () => {
      await store.accounts.insert(account(300));
      await store.channels.insert(channel(301, 300));
      await store.events.insertEvent({
        id: 302,
        account_id: 300,
        channel_id: 301,
        contact_id: null,
        message_id: null,
        type: 'message_echo',
        body: '{}',
        created_at: 1,
      });
      await store.events.insertDelivery({
        id: 303,
        event_id: 302,
        account_id: 300,
        channel_id: 301,
        webhook_id: 1,
        status: 'pending',
        attempts: 0,
        next_attempt_at: 1,
        locked_until: null,
        last_status_code: null,
        last_error: null,
        created_at: 1,
        updated_at: 1,
      });
      await store.channels.delete(300, 301);
      const left = await store.db.selectFrom('deliveries').select('id').where('channel_id', '=', 301).execute();
      assert.equal(left.length, 0);
      const events = await store.db.selectFrom('events').select('id').where('channel_id', '=', 301).execute();
      assert.equal(events.length, 0);
    });

    test('rate counters count per account and window', async () => {
      assert.equal(await store.rateCounter.hit(1, 1000, 100), 1);
      assert.equal(await store.rateCounter.hit(1, 1000, 100), 2);
      assert.equal(await store.rateCounter.hit(2, 1000, 100), 1);
      assert.equal(await store.rateCounter.hit(1, 2000, 100), 1);
      await store.rateCounter.prune(2000);
      assert.equal(await store.rateCounter.hit(1, 1000, 100), 1, 'a pruned window starts again');
    });

    test('tokens: lookup by hash finds the account until revoked', async () => {
      await store.accounts.insert(account(400));
      await store.tokens.insert({ id: 401, account_id: 400, token_hash: 'h401', created_at: 1, revoked_at: null });
      assert.equal((await store.tokens.findAccountByHash('h401'))?.id, 400);
      assert.equal(await store.tokens.revoke(401, 5), true);
      assert.equal(await store.tokens.revoke(401, 6), false);
      assert.equal(await store.tokens.findAccountByHash('h401'), undefined);
    });
  });
}

describe('Instance numbers on one PostgreSQL database', { skip: false }, () => {
  test('two stores opened at once hold different instance numbers; a closed one frees its number', async (t) => {
    const list = await dialects();
    if (list.find((d) => d.dialect === 'postgres')?.skip) return t.skip('PostgreSQL not reachable');
    const db = await createTestDatabase('postgres');
    try {
      const a = await openStore(db.url);
      const b = await openStore(db.url);
      assert.notEqual(a.instanceId, b.instanceId);
      const freed = a.instanceId;
      await a.close();
      const c = await openStore(db.url);
      assert.equal(c.instanceId, freed);
      await b.close();
      await c.close();
    } finally {
      await db.drop();
    }
  });
});
