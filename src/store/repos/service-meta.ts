import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * Facts about the installation (migration 016) that each instance checks at start: written once,
 * by the first instance to record them, and never changed by the service afterwards.
 */
export class ServiceMetaRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async find(name: string): Promise<string | null> {
    const row = await this.db.selectFrom('service_meta').select('value').where('name', '=', name).executeTakeFirst();
    return row?.value ?? null;
  }

  /**
   * Records `value` under `name` unless a value is there already, and answers the value that
   * stands: this one, or the one another instance recorded first (concurrent starts agree).
   */
  async record(name: string, value: string, now: number): Promise<string> {
    await this.db
      .insertInto('service_meta')
      .values({ name, value, created_at: now })
      .onConflict((c) => c.column('name').doNothing())
      .execute();
    return (await this.find(name)) ?? value;
  }

  /**
   * The newest secret of each kind stored encrypted (channel credentials, webhook secrets, NLP
   * servers' tokens): what a key must read on an installation that has no key check yet.
   */
  async encryptedSamples(): Promise<string[]> {
    const credentials = await this.db
      .selectFrom('channels')
      .select('secrets')
      .where('secrets', 'is not', null)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const webhook = await this.db
      .selectFrom('channels')
      .select('webhook_secret')
      .where('webhook_secret', 'is not', null)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const nlp = await this.db
      .selectFrom('nlp_integrations')
      .select('secret')
      .where('secret', 'is not', null)
      .orderBy('channel_id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return [credentials?.secrets, webhook?.webhook_secret, nlp?.secret].filter((s): s is string => typeof s === 'string');
  }
}
