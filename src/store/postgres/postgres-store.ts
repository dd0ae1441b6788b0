import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from '../schema.js';
import { KyselyStore } from '../base.js';
import type { RateCounter } from '../store.js';
import { MAX_INSTANCES } from '../../lib/ids.js';
import type { DeliveryQueue } from '../delivery-queue.js';
import { PostgresDeliveryQueue } from './delivery-queue.js';
import { PostgresUnitWriter } from './unit-writer.js';
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
 * Hits of one event-loop turn for one account and window become ONE upsert adding their number:
 * one round trip and one row lock per turn instead of per request (the row of a busy account is
 * the hottest in the database). Each caller still gets its own exact position in the count.
 */
class SharedRateCounter implements RateCounter {
  private pending = new Map<string, { accountId: number; windowStart: number; waiters: Array<{ resolve(n: number): void; reject(e: unknown): void }> }>();
  private scheduled = false;

  constructor(private readonly db: Kysely<Database>) {}

  hit(accountId: number, windowStart: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const key = `${accountId}:${windowStart}`;
      let entry = this.pending.get(key);
      if (!entry) {
        entry = { accountId, windowStart, waiters: [] };
        this.pending.set(key, entry);
      }
      entry.waiters.push({ resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const entries = [...this.pending.values()];
    this.pending.clear();
    for (const { accountId, windowStart, waiters } of entries) {
      const n = waiters.length;
      // A quota count need not survive a crash: this statement's commit does not wait for the WAL
      // flush (synchronous_commit off for its own implicit transaction only).
      sql<{ count: number }>`with s as (select set_config('synchronous_commit', 'off', true))
        insert into rate_counters (account_id, window_start, count) select ${accountId}, ${windowStart}, ${n} from s
        on conflict (account_id, window_start) do update set count = rate_counters.count + excluded.count
        returning count`
        .execute(this.db)
        .then(
          (result) => {
            const count = Number(result.rows[0]?.count);
            waiters.forEach((w, i) => w.resolve(count - n + 1 + i));
          },
          (error: unknown) => waiters.forEach((w) => w.reject(error)),
        );
    }
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
  readonly deliveryQueue: DeliveryQueue;
  private readonly queue: PostgresDeliveryQueue;

  private constructor(
    readonly pool: pg.Pool,
    private readonly leaseClient: pg.PoolClient,
    readonly instanceId: number,
  ) {
    super(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }));
    this.rateCounter = new SharedRateCounter(this.db);
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
