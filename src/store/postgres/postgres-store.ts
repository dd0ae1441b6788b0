import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from '../schema.js';
import { KyselyStore } from '../base.js';
import type { RateCounter } from '../store.js';
import { MAX_INSTANCES } from '../../lib/ids.js';
import type { DeliveryQueue } from '../delivery-queue.js';
import { PostgresDeliveryQueue } from './delivery-queue.js';
import { PostgresUnitWriter } from './unit-writer.js';
import { LeasedRateCounter } from './leased-rate-counter.js';
import { WriteBatcher } from '../write-batcher.js';
import type { WriteUnit } from '../write-unit.js';

/** int8 values (ids, epoch-ms times, counts) stay below 2^53, so plain numbers are safe. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

/** Advisory-lock namespace for instance leases ("parley" in ASCII). */
const LOCK_NAMESPACE = 0x70726c79;

/**
 * The scale-out store: several API and worker processes on one database. Each process leases an
 * instance number with a session advisory lock held on a dedicated connection; the lease ends
 * with the process, so a crashed instance frees its number.
 */
export class PostgresStore extends KyselyStore {
  readonly dialect = 'postgres' as const;
  readonly rateCounter: RateCounter;
  readonly deliveryQueue: DeliveryQueue;
  private readonly queue: PostgresDeliveryQueue;

  private constructor(
    readonly pool: pg.Pool,
    private readonly leaseClient: pg.PoolClient,
    readonly instanceId: number,
  ) {
    super(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }));
    this.rateCounter = new LeasedRateCounter(this.db);
    const url = pool.options.connectionString;
    this.queue = new PostgresDeliveryQueue(this.db, LOCK_NAMESPACE, {
      client: () => new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 }),
      pool: () => {
        const workerPool = new pg.Pool({ connectionString: url, max: 4, types, options: '-c synchronous_commit=off -c jit=off' });
        // As for the main pool: a connection the server ends must not end the process.
        workerPool.on('error', () => undefined);
        return workerPool;
      },
    });
    this.deliveryQueue = this.queue;
    const writer = new PostgresUnitWriter(pool);
    // A few batches in flight at once leave pool connections for reads; 100 units keep a statement's parameters bounded.
    this.batcher = new WriteBatcher((batch) => writer.flush(batch), { maxInFlight: 3, maxUnits: 100 });
  }

  private readonly batcher: WriteBatcher;

  /** Group commit: the units of one event-loop turn become one statement (see unit-writer.ts). */
  batchWrite(unit: WriteUnit): Promise<void> {
    return this.batcher.submit(unit);
  }

  static async open(url: string, poolSize = 10): Promise<PostgresStore> {
    const pool = new pg.Pool({ connectionString: url, max: poolSize, types });
    // A pooled connection the server ends (a restart, an administrator, the lease connection still
    // closing when the store is closed) reports an error on the pool; without a listener that
    // error would end the process. A query on such a connection fails by itself.
    pool.on('error', () => undefined);
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
    await this.batcher.drain();
    await this.queue.close();
    this.leaseClient.release(true);
    await this.db.destroy();
  }
}
