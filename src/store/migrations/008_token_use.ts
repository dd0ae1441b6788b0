import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * What an operator can tell about a token without the token itself: its first characters
 * (`prl_` and six more, shown by `token list`; null for tokens made before) and when it was last
 * used (written at most about once a minute per token, from the authentication cache).
 */
export const tokenUse: Migration = {
  name: '008_token_use',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('access_tokens').addColumn('prefix', 'text').execute();
    await db.schema.alterTable('access_tokens').addColumn('last_used_at', 'bigint').execute();
  },
};
