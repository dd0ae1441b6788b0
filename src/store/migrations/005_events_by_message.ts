import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Fewer scattered index writes per message. Each index keyed by contact takes an entry in a
 * different b-tree page for almost every message (conversations interleave), and every such page
 * is written again at the next commit. An event about a message now names the message (an
 * index in id order, so new entries land on the same last page) and leaves `contact_id` empty;
 * deleting a contact deletes its messages' events first (contacts repo). Events about no single
 * message keep naming their contact. No foreign key on `message_id`: on PostgreSQL its check
 * would lock the message row for every event written. Deleting a channel takes its events by
 * their channel; deleting a contact takes its messages' events itself.
 *
 * `messages_channel` goes: `messages_external` starts with (channel_id, direction) and serves the
 * same lookups (the channel cascade, counting what a channel sent).
 */
export const eventsByMessage: Migration = {
  name: '005_events_by_message',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('events').addColumn('message_id', 'bigint').execute();
    await db.schema.createIndex('events_message').on('events').column('message_id').execute();
    await db.schema.dropIndex('messages_channel').execute();
  },
};
