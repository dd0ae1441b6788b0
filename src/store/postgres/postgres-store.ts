import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from '../schema.js';
import { KyselyStore } from '../base.js';
import type { RateCounter } from '../store.js';
import { MAX_INSTANCES } from '../../lib/ids.js';

/** int8 values (ids, epoch-ms times, counts) stay below 2^53, so plain numbers are safe. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

/** Advisory-lock namespace for instance leases ("parley" in ASCII). */
const LOCK_NAMESPACE = 0x70726c79;

class SharedRateCounter implements RateCounter {
  constructor(private readonly db: Kysely<Database>) {}

  async hit(accountId: number, windowStart: number): Promise<number> {
    const row = await this.db
      .insertInto('rate_counters')
      .values({ account_id: accountId, window_start: windowStart, count: 1 })
      .onConflict((oc) => oc.columns(['account_id', 'window_start']).doUpdateSet({ count: sql`rate_counters.count + 1` }))
      .returning('count')
      .executeTakeFirstOrThrow();
    return row.count;
  }

  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('rate_counters').where('window_start', '<', before).execute();
  }
}

/**
 * The scale-out store: several API and worker processes on one database. Each process leases an
 * instance number with a session advisory lock held on a dedicated connection; the lease ends
 * with the process, so a crashed instance frees its number.
 */
export class PostgresStore extends KyselyStore {
  readonly dialect = 'postgres' as const;
  readonly rateCounter: RateCounter;

  private constructor(
    readonly pool: pg.Pool,
    private readonly leaseClient: pg.PoolClient,
    readonly instanceId: number,
  ) {
    super(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }));
    this.rateCounter = new SharedRateCounter(this.db);
  }

  static async open(url: string, poolSize = 10): Promise<PostgresStore> {
    const pool = new pg.Pool({ connectionString: url, max: poolSize, types });
    const leaseClient = await pool.connect();
    try {
      for (let n = 0; n < MAX_INSTANCES; n++) {
        const res = await leaseClient.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [LOCK_NAMESPACE, n]);
        if (res.rows[0]?.ok) return new PostgresStore(pool, leaseClient, n);
      }
    } catch (error) {
      leaseClient.release();
      await pool.end();
      throw error;
    }
    leaseClient.release();
    await pool.end();
    throw new Error(`all ${MAX_INSTANCES} instance numbers are in use on this database`);
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    this.leaseClient.release(true);
    await this.db.destroy();
  }
}
