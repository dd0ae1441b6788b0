import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Messages: an index by channel (counting what a `shared` channel has sent; the cascade when a
 * channel is deleted scans every message without it), and the idempotency key, which most
 * messages do not have, becomes a partial index: a send without a key touches no b-tree for it.
 * Uniqueness is unchanged (NULLs never conflicted). (messages_external stays whole, so inbound
 * code can name it in ON CONFLICT without repeating a predicate.)
 */
export const messagesByChannel: Migration = {
  name: '004_messages_by_channel',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('messages_channel').on('messages').column('channel_id').execute();
    await db.schema.dropIndex('messages_idempotency').execute();
    await db.schema
      .createIndex('messages_idempotency')
      .unique()
      .on('messages')
      .columns(['account_id', 'idempotency_key'])
      .where(sql.ref('idempotency_key'), 'is not', null)
      .execute();
  },
};
