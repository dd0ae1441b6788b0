import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/** The whole schema of the first release. bigint holds ids and epoch-millisecond times in both dialects. */
export const initial: Migration = {
  name: '001_initial',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('hourly_limit', 'integer')
      .addColumn('concurrency_limit', 'integer')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('access_tokens')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();

    await db.schema
      .createTable('channels')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('config', 'text', (c) => c.notNull())
      .addColumn('secrets', 'text')
      .addColumn('webhook_id', 'bigint')
      .addColumn('webhook_url', 'text')
      .addColumn('webhook_secret', 'text')
      .addColumn('webhook_ssl_verification', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('channels_account').on('channels').columns(['account_id', 'id']).execute();

    await db.schema
      .createTable('contacts')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('account_id', 'bigint', (c) => c.notNull())
      .addColumn('channel_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
      .addColumn('external_id', 'text')
      .addColumn('phone_number', 'text')
      .addColumn('email', 'text')
      .addColumn('user_ref', 'text')
      .addColumn('name', 'text')
      .addColumn('profile', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('contacts_channel').on('contacts').columns(['channel_id', 'id']).execute();
    for (const column of ['external_id', 'phone_number', 'email', 'user_ref']) {
      await db.schema.createIndex(`contacts_channel_${column}`).unique().on('contacts').columns(['channel_id', column]).execute();
    }

    await db.schema
      .createTable('messages')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('account_id', 'bigint', (c) => c.notNull())
      .addColumn('channel_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
      .addColumn('contact_id', 'bigint', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
      .addColumn('direction', 'text', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('external_id', 'text')
      .addColumn('error', 'text')
      .addColumn('idempotency_key', 'text')
      .addColumn('request_hash', 'text')
      .addColumn('sent_at', 'bigint', (c) => c.notNull())
      .addColumn('delivered_at', 'bigint')
      .addColumn('read_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('messages_contact').on('messages').columns(['contact_id', 'id']).execute();
    await db.schema.createIndex('messages_idempotency').unique().on('messages').columns(['account_id', 'idempotency_key']).execute();
    await db.schema.createIndex('messages_external').unique().on('messages').columns(['channel_id', 'direction', 'external_id']).execute();

    await db.schema
      .createTable('events')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('account_id', 'bigint', (c) => c.notNull())
      .addColumn('channel_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
      .addColumn('contact_id', 'bigint', (c) => c.references('contacts.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('events_channel').on('events').columns(['channel_id', 'id']).execute();
    await db.schema.createIndex('events_contact').on('events').column('contact_id').execute();

    await db.schema
      .createTable('deliveries')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('event_id', 'bigint', (c) => c.notNull().references('events.id').onDelete('cascade'))
      .addColumn('account_id', 'bigint', (c) => c.notNull())
      .addColumn('channel_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
      .addColumn('webhook_id', 'bigint', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_until', 'bigint')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('deliveries_due').on('deliveries').columns(['status', 'next_attempt_at']).execute();
    await db.schema.createIndex('deliveries_channel').on('deliveries').columns(['channel_id', 'id']).execute();
    await db.schema.createIndex('deliveries_event').on('deliveries').column('event_id').execute();

    await db.schema
      .createTable('delivery_attempts')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('delivery_id', 'bigint', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
      .addColumn('attempted_at', 'bigint', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('response_excerpt', 'text')
      .addColumn('error', 'text')
      .execute();
    await db.schema.createIndex('delivery_attempts_delivery').on('delivery_attempts').columns(['delivery_id', 'id']).execute();

    await db.schema
      .createTable('jobs')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('account_id', 'bigint', (c) => c.notNull())
      .addColumn('channel_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('run_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_until', 'bigint')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('jobs_due').on('jobs').columns(['status', 'run_at']).execute();

    await db.schema
      .createTable('rate_counters')
      .addColumn('account_id', 'bigint', (c) => c.notNull())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('rate_counters_pk', ['account_id', 'window_start'])
      .execute();

    await db.schema
      .createTable('files')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'bigint', (c) => c.notNull())
      .addColumn('channel_id', 'bigint', (c) => c.notNull().references('channels.id').onDelete('cascade'))
      .addColumn('contact_id', 'bigint', (c) => c.references('contacts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('mime_type', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('storage_key', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('files_contact').on('files').column('contact_id').execute();
  },
};
