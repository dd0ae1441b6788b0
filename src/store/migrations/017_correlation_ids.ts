import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Correlation ids (lib/correlation.ts), each written in its row's own insert:
 * - on events: the id of what made the event (the API request that sent a message, the platform
 *   call that reported one), logged with each of its webhook deliveries and sent to the receiver;
 * - on sent messages: the id of the request that sent it, so the platform's later reports on the
 *   message (delivered, failed) and their events carry the same id.
 * Null on rows written before it existed.
 */
export const correlationIds: Migration = {
  name: '017_correlation_ids',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('events').addColumn('correlation_id', 'text').execute();
    await db.schema.alterTable('messages').addColumn('correlation_id', 'text').execute();
  },
};
