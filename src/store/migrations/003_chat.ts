import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The web chat (service_chat): sessions, and on PostgreSQL the table the socket.io adapter uses
 * for broadcasts too large for a NOTIFY payload (its name and columns are the adapter's own).
 *
 * A session id is an unguessable token held by the browser; only its SHA-256 is stored. One
 * contact may have several sessions (several devices with one external contact id).
 */
export const chat: Migration = {
  name: '003_chat',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('chat_sessions')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'bigint', (c) => c.notNull())
      .addColumn('channel_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
      .addColumn('contact_id', 'bigint', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('chat_sessions_contact').on('chat_sessions').column('contact_id').execute();

    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      await sql`create table if not exists socket_io_attachments (id bigserial unique, created_at timestamptz default now(), payload bytea)`.execute(db);
    }
  },
};
