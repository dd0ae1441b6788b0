import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The correlation id of what made an event (the API request that sent a message, the platform
 * call that reported one), so each of its webhook deliveries logs it and sends it to the receiver.
 * Written in the event's own insert; null for events written before it existed.
 */
export const eventCorrelationIds: Migration = {
  name: '016_event_correlation_ids',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('events').addColumn('correlation_id', 'text').execute();
  },
};
