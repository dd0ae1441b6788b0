import type pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from '../schema.js';
import { KyselyStore } from '../base.js';
import type { PoolUse, RateCounter } from '../store.js';
import { MAX_INSTANCES } from '../../lib/ids.js';
import type { DeliveryQueue } from '../delivery-queue.js';
import { PostgresDeliveryQueue } from './delivery-queue.js';
import type { JobQueue } from '../job-queue.js';
import { PostgresJobQueue } from './job-queue.js';
import { PostgresUnitWriter } from './unit-writer.js';
import { LeasedRateCounter } from './leased-rate-counter.js';
import { WriteBatcher } from '../write-batcher.js';
import type { WriteUnit } from '../write-unit.js';
import type { ClusterBus } from '../cluster-bus.js';
import { PostgresConnections } from './connections.js';
import { PostgresClusterBus } from './cluster-bus.js';

/** Advisory-lock namespace for instance leases ("parley" in ASCII). */
const LOCK_NAMESPACE = 0x70726c79;

/**
 * The scale-out store: several API and worker processes on one database. Each process leases an
 * instance number with a session advisory lock held on a dedicated connection; the lease ends
 * with the process, so a crashed instance frees its number. Every connection the process opens
 * to the database is opened here, through its PostgresConnections (the connection budget).
 */
export class PostgresStore extends KyselyStore {
  readonly dialect = 'postgres' as const;
  readonly rateCounter: RateCounter;
  readonly deliveryQueue: DeliveryQueue;
  readonly jobQueue: JobQueue;
  private readonly queue: PostgresDeliveryQueue;

  private readonly buses = new Set<ClusterBus>();

  private constructor(
    private readonly connections: PostgresConnections,
    private readonly leaseClient: pg.PoolClient,
    readonly instanceId: number,
  ) {
    super(new Kysely<Database>({ dialect: new PostgresDialect({ pool: connections.pool }) }));
    this.rateCounter = new LeasedRateCounter(this.db);
    this.queue = new PostgresDeliveryQueue(this.db, LOCK_NAMESPACE, {
      client: () => connections.listenClient(),
      pool: () => connections.workerPool(),
    });
    this.deliveryQueue = this.queue;
    this.jobQueue = new PostgresJobQueue(this.db, LOCK_NAMESPACE, () => connections.listenClient());
    const writer = new PostgresUnitWriter(connections.pool);
    // A few batches in flight at once leave pool connections for reads; 100 units keep a statement's parameters bounded.
    this.batcher = new WriteBatcher((batch) => writer.flush(batch), { maxInFlight: 3, maxUnits: 100 });
  }

  private readonly batcher: WriteBatcher;

  /** Group commit: the units of one event-loop turn become one statement (see unit-writer.ts). */
  batchWrite(unit: WriteUnit): Promise<void> {
    return this.batcher.submit(unit);
  }

  /** `poolSize`: the query pool's connections (DATABASE_POOL_SIZE; see connections.ts for the rest). */
  static async open(url: string, poolSize?: number): Promise<PostgresStore> {
    const connections = new PostgresConnections(url, poolSize);
    let leaseClient: pg.PoolClient;
    try {
      leaseClient = await connections.pool.connect();
    } catch (error) {
      await connections.close();
      throw error;
    }
    try {
      for (let n = 0; n < MAX_INSTANCES; n++) {
        const res = await leaseClient.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [LOCK_NAMESPACE, n]);
        if (res.rows[0]?.ok) return new PostgresStore(connections, leaseClient, n);
      }
    } catch (error) {
      leaseClient.release();
      await connections.close();
      throw error;
    }
    leaseClient.release();
    await connections.close();
    throw new Error(`all ${MAX_INSTANCES} instance numbers are in use on this database`);
  }

  /** The chat cluster bus: one listening connection of its own, queries on the query pool. */
  openClusterBus(onError: (error: Error) => void): ClusterBus {
    const bus = new PostgresClusterBus(this.connections.clusterPool(), this.connections.pool, onError);
    this.buses.add(bus);
    return bus;
  }

  override poolUse(): PoolUse {
    const { totalCount, idleCount, waitingCount } = this.connections.pool;
    return { total: totalCount, idle: idleCount, waiting: waitingCount };
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  /** Closing twice (a test that stopped its server, then its after hook) is closing once. */
  private closing: Promise<void> | null = null;

  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    await this.batcher.drain();
    await this.queue.close();
    for (const bus of this.buses) await bus.close();
    this.leaseClient.release(true);
    await this.db.destroy();
    await this.connections.close();
  }
}
