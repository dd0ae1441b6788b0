import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** Expired bindings removed by one claim at most: the sweep keeps pace with the claims without a long statement. */
const SWEEP_BATCH = 100;

/**
 * Bodies bound to the signatures that came with them (migration 014), shared by every instance
 * and kept across restarts for as long as the signature is accepted.
 */
export class SignatureBindingsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Binds `digest` to `binding` unless a live binding holds another body: true when the body is
   * the one bound (the first call, or the same body again), false when another body was bound
   * first. Concurrent claims agree: the insert that wins decides. An expired binding is replaced.
   */
  async claim(binding: string, digest: string, expiresAt: number, now: number): Promise<boolean> {
    await this.db
      .deleteFrom('inbound_signature_bindings')
      .where('binding', 'in', (q) => q.selectFrom('inbound_signature_bindings').select('binding').where('expires_at', '<', now).limit(SWEEP_BATCH))
      .execute();
    await this.db
      .insertInto('inbound_signature_bindings')
      .values({ binding, body_digest: digest, expires_at: expiresAt })
      .onConflict((c) =>
        c.column('binding').doUpdateSet({ body_digest: digest, expires_at: expiresAt }).where('inbound_signature_bindings.expires_at', '<', now),
      )
      .execute();
    const row = await this.db.selectFrom('inbound_signature_bindings').select('body_digest').where('binding', '=', binding).executeTakeFirst();
    return row?.body_digest === digest;
  }
}
