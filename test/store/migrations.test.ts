import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { MIGRATIONS, migrationProvider } from '../../src/store/migrations/index.js';
import { contactRow } from '../helpers/store-rows.js';

describe('SQLite migration 006 (ids become the rowid)', () => {
  test('an existing database keeps every row and its foreign keys; the id indexes are gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-migrate-'));
    const store = SqliteStore.open(join(dir, 'db.sqlite'));
    try {
      const migrator = new Migrator({
        db: store.db,
        provider: migrationProvider,
        migrationTableName: 'schema_migrations',
        migrationLockTableName: 'schema_migrations_lock',
      });
      const upTo5 = await migrator.migrateTo('005_events_by_message');
      assert.equal(upTo5.error, undefined);
      const big = 2 ** 52 + 7;
      await store.accounts.insert({ id: 1, name: 'a', plan: 'enterprise', hourly_limit: null, concurrency_limit: null, created_at: 1 });
      await store.channels.insert({
        id: 2,
        account_id: 1,
        type: 'mobile',
        name: 'm',
        mode: 'test',
        config: '{}',
        secrets: null,
        webhook_id: 3,
        webhook_url: 'https://example.com/h',
        webhook_secret: null,
        webhook_ssl_verification: 1,
        settings: '{}',
        created_at: 1,
        updated_at: 1,
      });
      await store.contacts.insert(contactRow({ id: 4, account_id: 1, channel_id: 2, phone_number: '+420601000001' }));
      await store.batchWrite({
        insert: {
          messages: [
            {
              id: big,
              account_id: 1,
              channel_id: 2,
              contact_id: 4,
              direction: 'sent',
              content: '{"type":"text","payload":"x"}',
              metadata: null,
              status: 'sent',
              external_id: null,
              error: null,
              idempotency_key: 'k',
              request_hash: 'h',
              sent_at: 5,
              delivered_at: null,
              read_at: null,
              created_at: 5,
            },
          ],
          events: [
            {
              id: big + 1,
              account_id: 1,
              channel_id: 2,
              contact_id: null,
              message_id: big,
              type: 'message_echo',
              body: '{"event":"message_echo"}',
              created_at: 5,
            },
          ],
          deliveries: [
            {
              id: big + 2,
              event_id: big + 1,
              account_id: 1,
              channel_id: 2,
              webhook_id: 3,
              status: 'pending',
              attempts: 0,
              next_attempt_at: 5,
              locked_until: null,
              last_status_code: null,
              last_error: null,
              created_at: 5,
              updated_at: 5,
            },
          ],
        },
      });
      await sql`insert into delivery_attempts (id, delivery_id, attempted_at, url, status_code, duration_ms) values (${big + 3}, ${big + 2}, 6, 'https://example.com/h', 500, 7)`.execute(
        store.db,
      );

      // 006 and every later migration run.
      const later = MIGRATIONS.map((m) => m.name).slice(MIGRATIONS.findIndex((m) => m.name === '006_sqlite_rowid_ids'));
      assert.deepEqual(await store.migrate(), later);

      const schema = await sql<{
        name: string;
        sql: string | null;
      }>`select name, sql from sqlite_master where tbl_name in ('messages', 'events', 'deliveries')`.execute(store.db);
      for (const table of ['messages', 'events', 'deliveries']) {
        const create = schema.rows.find((r) => r.name === table)?.sql ?? '';
        assert.match(create, /"id" integer primary key/i, table);
        assert.equal(
          schema.rows.some((r) => r.name === `sqlite_autoindex_${table}_1`),
          false,
          `${table} still has a separate id index`,
        );
      }
      // The indexes are back, under their names.
      for (const index of [
        'messages_contact',
        'messages_idempotency',
        'messages_external',
        'events_channel',
        'events_contact',
        'events_message',
        'deliveries_claim',
        'deliveries_event',
      ]) {
        assert.ok(
          schema.rows.some((r) => r.name === index),
          `index ${index} missing`,
        );
      }
      const message = await store.messages.find(1, big);
      assert.equal(message?.id, big);
      assert.equal(message?.idempotency_key, 'k');
      const attempts = await sql<{ n: number }>`select count(*) as n from delivery_attempts where delivery_id = ${big + 2}`.execute(store.db);
      assert.equal(attempts.rows[0]!.n, 1);
      assert.equal(store.connection.pragma('foreign_keys', { simple: true }), 1);

      // Foreign keys still hold and still cascade: the delivery refers to the rebuilt events table.
      await assert.rejects(
        store.events.insertDelivery({
          id: big + 9,
          event_id: 999,
          account_id: 1,
          channel_id: 2,
          webhook_id: 3,
          status: 'pending',
          attempts: 0,
          next_attempt_at: 5,
          locked_until: null,
          last_status_code: null,
          last_error: null,
          created_at: 5,
          updated_at: 5,
        }),
      );
      await store.transaction((tx) => tx.contacts.delete(1, 2, 4));
      for (const table of ['messages', 'events', 'deliveries', 'delivery_attempts'] as const) {
        const left = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(store.db);
        assert.equal(left.rows[0]!.n, 0, `${table} kept rows of the deleted contact`);
      }
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
