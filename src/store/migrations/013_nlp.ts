import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * NLP on received text: a channel's NLP integration (one per channel, gone with it), the trained
 * model of a built-in integration (kept in the store so every instance classifies with the same
 * one; a separate table, so reading the integration does not read the model), and the result a
 * received text message got (`messages.nlp`, JSON; null for every other message).
 */
export const nlp: Migration = {
  name: '013_nlp',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('nlp_integrations')
      .addColumn('channel_id', 'bigint', (c) => c.primaryKey().references('channels.id').onDelete('cascade'))
      .addColumn('account_id', 'bigint', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('config', 'text', (c) => c.notNull())
      .addColumn('secret', 'text')
      .addColumn('time_budget_ms', 'integer')
      .addColumn('training_version', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('training_status', 'text')
      .addColumn('training_error', 'text')
      .addColumn('model_version', 'integer')
      .addColumn('trained_at', 'bigint')
      .addColumn('classified', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('failed', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('timed_out', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_failure_at', 'bigint')
      .addColumn('last_failure', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('nlp_models')
      .addColumn('channel_id', 'bigint', (c) => c.primaryKey().references('nlp_integrations.channel_id').onDelete('cascade'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.alterTable('messages').addColumn('nlp', 'text').execute();
  },
};
