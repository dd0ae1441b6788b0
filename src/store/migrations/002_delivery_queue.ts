import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * What the webhook queue needs beyond the first schema: a lease token (so a worker whose lease
 * ran out cannot overwrite the row another worker now holds), the instance that claimed the row
 * last (to free the leases of a crashed process at once), and an index for the deliveries list
 * filtered by status.
 */
export const deliveryQueue: Migration = {
  name: '002_delivery_queue',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('deliveries').addColumn('lease_id', 'bigint').execute();
    await db.schema.alterTable('deliveries').addColumn('locked_by', 'integer').execute();
    await db.schema.createIndex('deliveries_channel_status').on('deliveries').columns(['channel_id', 'status', 'id']).execute();
    // Claims read due rows in (next_attempt_at, id) order straight from this index. (Adding the
    // lease column to it saves lookups but costs more in index writes at every claim.)
    await db.schema.createIndex('deliveries_claim').on('deliveries').columns(['status', 'next_attempt_at', 'id']).execute();
    await db.schema.dropIndex('deliveries_due').execute();
  },
};
