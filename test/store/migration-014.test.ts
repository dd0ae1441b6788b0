import { describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { Migrator, type Kysely } from 'kysely';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/databases.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import type { Database } from '../../src/store/schema.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { UniqueViolation } from '../../src/store/errors.js';

const user = (id: number, accountId: number, email: string) => ({
  id,
  account_id: accountId,
  email,
  email_key: email.toLowerCase(),
  role: 'owner',
  password_hash: null,
  must_change_password: 0,
  created_at: 1,
});

for (const { dialect, skip, test } of await dialects()) {
  describe(`migration 014: a user's e-mail is unique per account (${dialect})`, { skip }, () => {
    const opened: Array<{ store: Store; db: TestDatabase }> = [];
    after(async () => {
      for (const { store, db } of opened) {
        await store.close();
        await db.drop();
      }
    });

    test('existing users, sessions and setup links are kept; the same e-mail may be a user of another account, not twice of one', async () => {
      const db = await createTestDatabase(dialect, { migrated: false });
      const store = await openStore(db.url);
      opened.push({ store, db });
      const migrator = new Migrator({
        db: (store as unknown as { db: Kysely<Database> }).db,
        provider: migrationProvider,
        migrationTableName: 'schema_migrations',
        migrationLockTableName: 'schema_migrations_lock',
      });
      assert.equal((await migrator.migrateTo('013_nlp')).error, undefined);
      for (const id of [1, 2]) await store.accounts.insert({ id, name: `a${id}`, plan: 'free', hourly_limit: null, concurrency_limit: null, created_at: 1 });
      await store.adminUsers.insert(user(10, 1, 'Person@example.com'));
      await store.adminSessions.insert({ id_hash: 'h', user_id: 10, csrf_token: 'c', created_at: 1, last_seen_at: 1, expires_at: 10 ** 12 });
      await store.setupTokens.insert({ token_hash: 't', user_id: 10, created_at: 1, expires_at: 10 ** 12, used_at: null });
      await assert.rejects(store.adminUsers.insert(user(11, 2, 'person@example.com')), UniqueViolation, 'unique across accounts before');

      assert.equal((await migrator.migrateToLatest()).error, undefined);
      assert.equal((await store.adminUsers.find(10))?.email, 'Person@example.com');
      assert.equal((await store.adminSessions.findWithUser('h'))?.user.id, 10, 'the session is kept');
      assert.equal(await store.setupTokens.consume('t', 2), 10, 'the setup link is kept');
      await store.adminUsers.insert(user(11, 2, 'person@example.com'));
      await assert.rejects(store.adminUsers.insert(user(12, 2, 'PERSON@example.com')), UniqueViolation);
      const found = await store.adminUsers.findAllByEmailKey('person@example.com', 10);
      assert.deepEqual(
        found.map((r) => Number(r.id)),
        [10, 11],
      );
      await store.accounts.delete(1);
      assert.equal(await store.adminUsers.find(10), undefined, 'deleting the account still takes its users');
      assert.equal(await store.adminSessions.findWithUser('h'), undefined, 'and their sessions');
    });
  });
}
