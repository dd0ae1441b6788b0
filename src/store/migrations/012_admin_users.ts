import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The administration app's people and their sign-in: users of an account (an e-mail unique in
 * any letter case through `email_key`, a role, a scrypt hash, or none until a setup link is
 * used), their sessions (only the SHA-256 of the cookie's id is stored), one-time setup links
 * (hash only), and failed sign-ins for the throttle (one row per failure under `email:<e>` and
 * `addr:<address>`, shared by every instance). Deleting an account takes its users, and a user
 * its sessions and setup links. Access tokens get a name (null for older tokens: shown as
 * `token <prefix>`).
 */
export const adminUsers: Migration = {
  name: '012_admin_users',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('admin_users')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('email_key', 'text', (c) => c.notNull().unique())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text')
      .addColumn('must_change_password', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('admin_users_account').on('admin_users').columns(['account_id', 'id']).execute();

    await db.schema
      .createTable('admin_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('admin_users.id').onDelete('cascade'))
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('admin_sessions_user').on('admin_sessions').column('user_id').execute();

    await db.schema
      .createTable('admin_setup_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('admin_users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema.createIndex('admin_setup_tokens_user').on('admin_setup_tokens').column('user_id').execute();

    await db.schema
      .createTable('admin_sign_in_failures')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('admin_sign_in_failures_key').on('admin_sign_in_failures').columns(['key', 'at']).execute();

    await db.schema.alterTable('access_tokens').addColumn('name', 'text').execute();
  },
};
