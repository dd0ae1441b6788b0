import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Platforms whose signature covers a nonce and a time but not the body (inbound mail): the first
 * body seen under a signature is bound to it, so the signature cannot carry another body later,
 * on any instance or after a restart. `binding` is a hash of the key and the nonce (neither is
 * stored), `body_digest` the SHA-256 of the body; a row is dropped once its signature has expired.
 */
export const inboundSignatureBindings: Migration = {
  name: '015_inbound_signature_bindings',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('inbound_signature_bindings')
      .addColumn('binding', 'text', (c) => c.primaryKey())
      .addColumn('body_digest', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('inbound_signature_bindings_expiry').on('inbound_signature_bindings').column('expires_at').execute();
  },
};
