import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { appendEvent } from '../helpers/factories.js';
import { firstIdAt } from '../../src/lib/ids.js';
import type { Clock } from '../../src/lib/clock.js';
import { ADMIN_TEST_ENV, signedIn, type AdminClient } from './admin-data-client.js';

const HOUR = 3_600_000;

/** Real time moved to half past the current hour, so no count falls across an hour boundary while the test runs. */
class HalfPastClock implements Clock {
  private readonly offset: number;
  constructor() {
    const now = Date.now();
    this.offset = now - (now % HOUR) + HOUR / 2 - now;
  }
  now(): number {
    return Date.now() + this.offset;
  }
}

for (const { dialect, skip, test } of await dialects()) {
  describe(`administration: overview (${dialect})`, { skip }, () => {
    let s: TestServer;
    let clock: HalfPastClock;
    let app: AdminClient;
    let seq = 0;
    before(async () => {
      clock = new HalfPastClock();
      s = await startTestApp(dialect, { env: ADMIN_TEST_ENV, clock });
      app = await signedIn(s, s.accountId, 'member');
    });
    after(async () => s?.close());

    async function channel(accountId: number, name: string, webhook = false): Promise<number> {
      const account = accountId === s.accountId ? s.api : (await s.newAccount()).api;
      const res = await account.post('/v1/channels', { type: 'service_chat', name, ...(webhook ? { webhook: { url: 'http://127.0.0.1:9/hook' } } : {}) });
      assert.equal(res.status, 201, res.text);
      return Number(res.body.id);
    }

    /** A message row as the service writes one at `at` (its id made from that time, as ids are). */
    async function message(accountId: number, channelId: number, direction: 'sent' | 'received', at: number): Promise<void> {
      const { store } = s.runtime;
      seq += 1;
      const contactId = 1_000_000 + seq;
      await store.contacts.insert({
        id: contactId,
        account_id: accountId,
        channel_id: channelId,
        external_id: `user-${seq}`,
        phone_number: null,
        email: null,
        user_ref: null,
        name: null,
        profile: '{}',
        created_at: at,
        updated_at: at,
      });
      await store.messages.insert({
        id: firstIdAt(at) + seq,
        account_id: accountId,
        channel_id: channelId,
        contact_id: contactId,
        direction,
        content: JSON.stringify({ type: 'text', payload: 'hi' }),
        metadata: null,
        status: direction,
        external_id: null,
        error: null,
        idempotency_key: null,
        request_hash: null,
        sent_at: at,
        delivered_at: null,
        read_at: null,
        created_at: at,
      });
    }

    test('per channel of the account: sent, received and failed deliveries in 24 hourly buckets, nothing older or foreign', async () => {
      const now = clock.now();
      const hourStart = now - (now % HOUR);
      const a = await channel(s.accountId, 'Shop chat');
      const b = await channel(s.accountId, 'Support chat', true);
      for (let i = 0; i < 3; i++) await message(s.accountId, a, 'sent', now - 1000 * i);
      for (let i = 0; i < 2; i++) await message(s.accountId, a, 'received', now - 60_000 * i);
      await message(s.accountId, a, 'sent', hourStart - 5 * HOUR + 10);
      await message(s.accountId, a, 'received', hourStart - 23 * HOUR);
      // Before the window: the first hour's start minus a millisecond, and a day ago.
      await message(s.accountId, a, 'received', hourStart - 23 * HOUR - 1);
      await message(s.accountId, a, 'sent', now - 25 * HOUR);
      await message(s.accountId, b, 'received', hourStart - 2 * HOUR + 5);
      // Another account's channel and messages.
      const otherAccount = await s.newAccount();
      const foreign = await channel(otherAccount.accountId, 'Not ours');
      const foreignRow = await s.runtime.store.channels.findAnyAccount(foreign);
      await message(foreignRow!.account_id, foreign, 'sent', now);

      // Two deliveries of b end failed: one an hour ago, one now; a pending one is not counted.
      const failed1 = await appendEvent(s, String(b));
      const failed2 = await appendEvent(s, String(b));
      await appendEvent(s, String(b));
      const db = s.runtime.store.db;
      await db
        .updateTable('deliveries')
        .set({ status: 'failed', updated_at: hourStart - HOUR + 1 })
        .where('id', '=', Number(failed1.deliveryId))
        .execute();
      await db
        .updateTable('deliveries')
        .set({ status: 'failed', updated_at: now - 10 })
        .where('id', '=', Number(failed2.deliveryId))
        .execute();

      const res = await app.get('/overview');
      assert.equal(res.status, 200, res.text);
      const { since, until, channels } = res.body;
      assert.equal(Date.parse(since), hourStart - 23 * HOUR);
      assert.ok(Math.abs(Date.parse(until) - now) < 5000);
      assert.deepEqual(
        channels.map((c: any) => c.name),
        ['Shop chat', 'Support chat'],
      );
      const [shop, support] = channels;
      assert.equal(shop.id, String(a));
      assert.equal(shop.type, 'service_chat');
      assert.deepEqual([shop.sent, shop.received, shop.deliveries_failed], [4, 3, 0]);
      assert.equal(shop.hourly.length, 24);
      shop.hourly.forEach((h: any, i: number) => assert.equal(Date.parse(h.hour), hourStart - (23 - i) * HOUR));
      assert.deepEqual(shop.hourly[23], { hour: new Date(hourStart).toISOString(), sent: 3, received: 2, deliveries_failed: 0 });
      assert.deepEqual([shop.hourly[18].sent, shop.hourly[18].received], [1, 0]);
      assert.deepEqual([shop.hourly[0].sent, shop.hourly[0].received], [0, 1]);
      const counted = shop.hourly.reduce((n: number, h: any) => n + h.sent + h.received, 0);
      assert.equal(counted, 7);

      assert.deepEqual([support.sent, support.received, support.deliveries_failed], [0, 1, 2]);
      assert.equal(support.hourly[21].received, 1);
      assert.equal(support.hourly[22].deliveries_failed, 1);
      assert.equal(support.hourly[23].deliveries_failed, 1);
    });

    test('the message count reads the window through the primary key, not the whole table', async () => {
      const now = clock.now();
      const since = now - (now % HOUR) - 23 * HOUR;
      const query = s.runtime.store.overview.messageCountsQuery(s.accountId, { since, until: now, firstId: firstIdAt(since) }).compile();
      const db = s.runtime.store.db;
      let i = 0;
      const inline = (text: string) => text.replace(/\?|\$\d+/g, () => String(query.parameters[i++]));
      if (dialect === 'sqlite') {
        const plan = await sql.raw(`explain query plan ${inline(query.sql)}`).execute(db);
        assert.match(JSON.stringify(plan.rows), /SEARCH messages USING INTEGER PRIMARY KEY \(rowid>\?\)/);
      } else {
        // The planner scans a small table anyway; without that choice it must take the key's range.
        const plan = await db.transaction().execute(async (trx) => {
          await sql`set local enable_seqscan = off`.execute(trx);
          return sql.raw(`explain ${inline(query.sql)}`).execute(trx);
        });
        const text = JSON.stringify(plan.rows);
        assert.match(text, /messages_pkey/, text);
        assert.match(text, /Index Cond: \(id >= /, text);
      }
    });
  });
}
