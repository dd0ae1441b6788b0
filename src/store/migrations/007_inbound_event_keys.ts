import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * A platform that calls again with the same event (its own retry, or a replay of a signed call)
 * must not make a second event. Messages are kept once by their platform id
 * (`messages_external`); events that store no message row (postbacks, opt-ins) carry the
 * platform's identity of the event in `inbound_key`, unique per channel. The index is partial:
 * only inbound events have a key, so the events written for every sent message add no entry.
 */
export const inboundEventKeys: Migration = {
  name: '007_inbound_event_keys',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('events').addColumn('inbound_key', 'text').execute();
    await db.schema
      .createIndex('events_inbound_key')
      .unique()
      .on('events')
      .columns(['channel_id', 'inbound_key'])
      .where(sql.ref('inbound_key'), 'is not', null)
      .execute();
  },
};
