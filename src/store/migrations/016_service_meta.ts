import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Facts about the installation that every instance checks at start: the encryption key's check
 * value, the marker of the shared files folder. One row per name, written once by the first
 * instance that records it.
 */
export const serviceMeta: Migration = {
  name: '016_service_meta',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('service_meta')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
