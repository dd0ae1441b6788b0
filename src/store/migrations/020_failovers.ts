import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Cross-channel failover (beyond the specification): a Send Message with `fallbacks` is a chain
 * of steps, each a message on its own channel. `failovers` holds the chain, keyed by its first
 * message: the steps still to try as requested (`plan`, JSON), the index of the step now running
 * (`step`, moved only by a compare-and-set on its old value) and whether its job still watches it
 * (`state`). `failover_steps` holds one row per step that started: its message, when it
 * started, the deadline of its condition and why it ended; (failover_id, step) is unique, so no
 * step is started twice whoever races. A step's reports find their chain by the step's message,
 * a read receipt by the step's contact while the step is open.
 */
export const failovers: Migration = {
  name: '020_failovers',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('failovers')
      .addColumn('id', 'bigint', (c) => c.primaryKey().references('messages.id').onDelete('cascade'))
      .addColumn('account_id', 'bigint', (c) => c.notNull())
      .addColumn('step', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('failover_steps')
      .addColumn('message_id', 'bigint', (c) => c.primaryKey().references('messages.id').onDelete('cascade'))
      .addColumn('failover_id', 'bigint', (c) => c.notNull().references('failovers.id').onDelete('cascade'))
      .addColumn('step', 'integer', (c) => c.notNull())
      .addColumn('channel_id', 'bigint', (c) => c.notNull())
      .addColumn('contact_id', 'bigint', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('deadline_at', 'bigint')
      .addColumn('ended_at', 'bigint')
      .addColumn('outcome', 'text')
      .execute();
    await db.schema.createIndex('failover_steps_order').on('failover_steps').columns(['failover_id', 'step']).unique().execute();
    await db.schema.createIndex('failover_steps_open_contact').on('failover_steps').column('contact_id').where(sql.ref('ended_at'), 'is', null).execute();
  },
};
