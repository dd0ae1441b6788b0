import { sql, SqliteAdapter, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/** The tables written for every message (message, its events, their deliveries). */
const TABLES = ['messages', 'events', 'deliveries'] as const;

interface SchemaRow {
  type: string;
  name: string;
  sql: string;
}

/**
 * SQLite only: the ids of the tables written for every message become the rowid. A `bigint
 * primary key` is a separate unique index beside the table's own rowid b-tree, so every insert
 * wrote two b-trees for the id; `integer primary key` is the rowid itself (about a fifth less
 * time per insert). SQLite cannot change a key in place, so each table is rebuilt as its
 * documented procedure says: foreign keys off, one transaction (new table, copy, drop, rename,
 * indexes), a foreign key check, foreign keys on. PostgreSQL keeps its schema.
 */
export const sqliteRowidIds: Migration = {
  name: '006_sqlite_rowid_ids',
  async up(db: Kysely<unknown>): Promise<void> {
    if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
    // Not inside a transaction: SQLite ignores this pragma there.
    await sql`pragma foreign_keys = off`.execute(db);
    try {
      await db.transaction().execute(async (trx) => {
        for (const table of TABLES) {
          const { rows } = await sql<SchemaRow>`select type, name, sql from sqlite_master where tbl_name = ${table} and sql is not null`.execute(trx);
          const create = rows.find((r) => r.type === 'table');
          if (!create) throw new Error(`table ${table} not found`);
          const key = /"id" bigint primary key/i;
          if (!key.test(create.sql)) continue;
          const temporary = `${table}_rebuilt`;
          const createNew = create.sql
            .replace(key, '"id" integer primary key')
            .replace(new RegExp(`^create table "?${table}"?`, 'i'), `create table "${temporary}"`);
          await sql.raw(createNew).execute(trx);
          await sql.raw(`insert into "${temporary}" select * from "${table}"`).execute(trx);
          await sql.raw(`drop table "${table}"`).execute(trx);
          await sql.raw(`alter table "${temporary}" rename to "${table}"`).execute(trx);
          for (const index of rows.filter((r) => r.type === 'index')) await sql.raw(index.sql).execute(trx);
        }
        const { rows: broken } = await sql`pragma foreign_key_check`.execute(trx);
        if (broken.length > 0) throw new Error(`foreign key check failed after rebuilding ${TABLES.join(', ')}: ${JSON.stringify(broken.slice(0, 5))}`);
      });
    } finally {
      await sql`pragma foreign_keys = on`.execute(db);
    }
  },
};
