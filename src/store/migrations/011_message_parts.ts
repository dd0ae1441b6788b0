import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * What a message is sent as, where the type counts it (SMS): its number of parts and their
 * encoding, computed once when Send Message accepts it. Null for every other message.
 */
export const messageParts: Migration = {
  name: '011_message_parts',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('messages').addColumn('part_count', 'integer').execute();
    await db.schema.alterTable('messages').addColumn('part_encoding', 'text').execute();
  },
};
