import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/databases.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { MissingReference, UniqueViolation } from '../../src/store/errors.js';
import type { WriteUnit } from '../../src/store/write-unit.js';
import { contactRow } from '../helpers/store-rows.js';

/** The group-commit write path of the store (store.batchWrite), on both databases. */
for (const { dialect, skip } of await dialects()) {
  describe(`store.batchWrite (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let next = 1000;
    before(async () => {
      db = await createTestDatabase(dialect);
      store = await openStore(db.url);
      await store.migrate();
      await store.accounts.insert({ id: 1, name: 'a', plan: 'enterprise', hourly_limit: null, concurrency_limit: null, created_at: 1 });
      await store.channels.insert({
        id: 1,
        account_id: 1,
        type: 'mobile',
        name: 'm',
        mode: 'test',
        config: '{}',
        secrets: null,
        webhook_id: null,
        webhook_url: null,
        webhook_secret: null,
        webhook_ssl_verification: 1,
        settings: '{}',
        created_at: 1,
        updated_at: 1,
      });
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    const contact = (id: number, phone: string) => contactRow({ id, account_id: 1, channel_id: 1, phone_number: phone });
    const message = (id: number, contactId: number, key: string | null = null) => ({
      id,
      account_id: 1,
      channel_id: 1,
      contact_id: contactId,
      direction: 'sent',
      content: '{"type":"text","payload":"x"}',
      metadata: null,
      status: 'sent',
      external_id: null,
      error: null,
      idempotency_key: key,
      request_hash: key ? 'h' : null,
      sent_at: 1,
      delivered_at: null,
      read_at: null,
      created_at: 1,
    });
    const event = (id: number, messageId: number) => ({
      id,
      account_id: 1,
      channel_id: 1,
      contact_id: null,
      message_id: messageId,
      type: 'message_echo',
      body: '{}',
      created_at: 1,
    });

    function unit(phone: string, key: string | null = null, contactId = next++): WriteUnit {
      const m = next++;
      return { ensure: { contacts: [contact(contactId, phone)] }, insert: { messages: [message(m, contactId, key)], events: [event(next++, m)] } };
    }

    test('units of one turn commit together; one failing unit fails alone', async () => {
      const before = await store.messages.countSent(1, 1);
      const units = [unit('+1001'), unit('+1002', 'dup'), unit('+1003'), unit('+1004', 'dup'), unit('+1005')];
      const results = await Promise.allSettled(units.map((u) => store.batchWrite(u)));
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
      );
      const error = (results[3] as PromiseRejectedResult).reason;
      assert.ok(error instanceof UniqueViolation, String(error));
      assert.equal(error.table, 'messages');
      assert.deepEqual([...error.columns], ['account_id', 'idempotency_key']);
      assert.equal(await store.messages.countSent(1, 1), before + 4);
      // The failed unit's contact did not stay behind.
      assert.equal(await store.contacts.findBy(1, 1, 'phone_number', '+1004'), undefined);
    });

    test('a contact ensured by several units of one batch is made once; messages refer to it', async () => {
      const id = next++;
      const units = [unit('+2001', null, id), unit('+2001', null, id), unit('+2001', null, id)];
      await Promise.all(units.map((u) => store.batchWrite(u)));
      const found = await store.contacts.findBy(1, 1, 'phone_number', '+2001');
      assert.equal(found?.id, id);
      const { total } = await store.messages.listForContact(1, 1, id, 10, 0);
      assert.equal(total, 3);
    });

    test('text is stored exactly as given (quotes, backslashes, line breaks, emoji, escape-like text); a lone surrogate is not refused', async () => {
      const texts = ['say "hi"\\n\n\ttab', 'emoji \u{1F600} and é', 'literal \\ud800 stays', 'lone \ud800 surrogate', 'after a backslash \\\udc00'];
      const ids: number[] = [];
      const units = texts.map((text) => {
        const u = unit(`+4${next}`);
        const m = u.insert.messages![0]!;
        m.content = JSON.stringify({ type: 'text', text });
        m.metadata = text;
        ids.push(m.id as number);
        return u;
      });
      await Promise.all(units.map((u) => store.batchWrite(u)));
      const stored = await Promise.all(ids.map(async (id) => (await store.messages.find(1, id))!));
      const texts0 = stored.map((m) => m.metadata!);
      assert.deepEqual(texts0.slice(0, 3), texts.slice(0, 3));
      assert.deepEqual(
        stored.slice(0, 3).map((m) => (JSON.parse(m.content) as { text: string }).text),
        texts.slice(0, 3),
      );
      // A lone surrogate has no UTF-8 form: each store keeps replacement characters in its place.
      assert.match(texts0[3]!, /^lone \ufffd+ surrogate$/);
      assert.match(texts0[4]!, /^after a backslash \\\ufffd+$/);
    });

    test('a row referring to a missing contact is MissingReference', async () => {
      const orphan: WriteUnit = { insert: { messages: [message(next++, 424242)] } };
      await assert.rejects(store.batchWrite(orphan), (e: unknown) => e instanceof MissingReference);
    });

    test('a contact that exists already (made elsewhere with another id) makes the unit fail as MissingReference', async () => {
      await store.batchWrite(unit('+3001'));
      await assert.rejects(store.batchWrite(unit('+3001')), (e: unknown) => e instanceof MissingReference);
    });

    test('a resolved unit is committed: another connection sees it', async () => {
      const u = unit('+4001');
      await store.batchWrite(u);
      const other = await openStore(db.url);
      try {
        const id = (u.insert.messages![0] as { id: number }).id;
        assert.equal((await other.messages.find(1, id))?.id, id);
      } finally {
        await other.close();
      }
    });

    test('SQLite: WAL checkpoints happen off the event loop (the writer never checkpoints itself)', { skip: dialect !== 'sqlite' }, async () => {
      const connection = (store as unknown as { connection: { pragma(s: string): Array<Record<string, number>> } }).connection;
      assert.equal(connection.pragma('wal_autocheckpoint')[0]!.wal_autocheckpoint, 0);
      await Promise.all(Array.from({ length: 300 }, (_, i) => store.batchWrite(unit(`+6${String(i).padStart(4, '0')}`))));
      // The worker backfills the WAL; the next write then starts the WAL over from its beginning.
      await new Promise((r) => setTimeout(r, 800));
      await store.batchWrite(unit('+7000'));
      const [state] = connection.pragma('wal_checkpoint(PASSIVE)');
      assert.ok(state!.log! < 50, `WAL still holds ${state!.log} frames`);
    });

    test('hundreds of concurrent units all commit', async () => {
      const before = await store.messages.countSent(1, 1);
      await Promise.all(Array.from({ length: 400 }, (_, i) => store.batchWrite(unit(`+5${String(i).padStart(4, '0')}`))));
      assert.equal(await store.messages.countSent(1, 1), before + 400);
    });
  });
}
