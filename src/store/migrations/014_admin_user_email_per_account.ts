import { sql, SqliteAdapter, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

interface SchemaRow {
  type: string;
  name: string;
  sql: string;
}

/**
 * A user's e-mail is unique within an account, no longer across all of them: one person may be a
 * user of several accounts, and adding a user must not tell an owner that the address is used
 * elsewhere. `(account_id, email_key)` is unique; sign-in finds every user of an e-mail by
 * `email_key`.
 *
 * PostgreSQL drops the column's unique constraint. SQLite cannot drop a column constraint, so
 * the table is rebuilt as its documented procedure says (foreign keys off, one transaction: new
 * table, copy, drop, rename, indexes; a foreign key check; foreign keys on), keeping the users'
 * sessions and setup links.
 */
export const adminUserEmailPerAccount: Migration = {
  name: '014_admin_user_email_per_account',
  async up(db: Kysely<unknown>): Promise<void> {
    if (db.getExecutor().adapter instanceof SqliteAdapter) {
      // Not inside a transaction: SQLite ignores this pragma there.
      await sql`pragma foreign_keys = off`.execute(db);
      try {
        await db.transaction().execute(async (trx) => {
          const { rows } = await sql<SchemaRow>`select type, name, sql from sqlite_master where tbl_name = 'admin_users' and sql is not null`.execute(trx);
          const create = rows.find((r) => r.type === 'table');
          if (!create) throw new Error('table admin_users not found');
          const unique = /("email_key" text not null) unique/i;
          if (!unique.test(create.sql)) throw new Error(`admin_users is not as 012 made it: ${create.sql}`);
          const createNew = create.sql.replace(unique, '$1').replace(/^create table "?admin_users"?/i, 'create table "admin_users_rebuilt"');
          await sql.raw(createNew).execute(trx);
          await sql.raw('insert into "admin_users_rebuilt" select * from "admin_users"').execute(trx);
          await sql.raw('drop table "admin_users"').execute(trx);
          await sql.raw('alter table "admin_users_rebuilt" rename to "admin_users"').execute(trx);
          for (const index of rows.filter((r) => r.type === 'index')) await sql.raw(index.sql).execute(trx);
          await addIndexes(trx);
          const { rows: broken } = await sql`pragma foreign_key_check`.execute(trx);
          if (broken.length > 0) throw new Error(`foreign key check failed after rebuilding admin_users: ${JSON.stringify(broken.slice(0, 5))}`);
        });
      } finally {
        await sql`pragma foreign_keys = on`.execute(db);
      }
      return;
    }
    await sql`alter table admin_users drop constraint admin_users_email_key_key`.execute(db);
    await addIndexes(db);
  },
};

async function addIndexes(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('admin_users_account_email').on('admin_users').columns(['account_id', 'email_key']).unique().execute();
  await db.schema.createIndex('admin_users_email').on('admin_users').column('email_key').execute();
}
