import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from '../schema.js';
import { KyselyStore } from '../base.js';
import { EXCLUSIVE_TASKS, type ExclusiveTask, type PoolUse, type RateCounter, type StoreLoad } from '../store.js';
import type { Logger } from '../../lib/logger.js';
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
import { InstanceLease, LOCK_NAMESPACE } from './instance-lease.js';
import { StoreUnavailable } from '../errors.js';

/** Advisory-lock namespace of the tasks one process at a time runs ("prlx" in ASCII): apart from the instance leases, which the queues count. */
const EXCLUSIVE_NAMESPACE = 0x70726c78;

/**
 * The scale-out store: several API and worker processes on one database. Each process leases an
 * instance number with a session advisory lock held on a dedicated connection; the lease ends
 * with the process, so a crashed instance frees its number. Every connection the process opens
 * to the database is opened here, through its PostgresConnections (the connection budget).
 * While the lease is lost (instance-lease.ts) no id is issued and group-commit writes are
 * refused as unavailable.
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
    private readonly lease: InstanceLease,
  ) {
    super(new Kysely<Database>({ dialect: new PostgresDialect({ pool: connections.pool }) }));
    this.rateCounter = new LeasedRateCounter(this.db);
    this.queue = new PostgresDeliveryQueue(this.db, LOCK_NAMESPACE, {
      listen: (channel, listener) => connections.listen(channel, listener),
      pool: () => connections.workerPool(),
    });
    this.deliveryQueue = this.queue;
    this.jobQueue = new PostgresJobQueue(this.db, LOCK_NAMESPACE, (channel, listener) => connections.listen(channel, listener), connections.pool);
    const writer = new PostgresUnitWriter(connections.pool);
    // 100 units keep a statement's parameters bounded. A statement's fixed cost (its round trip,
    // executor start, commit and WAL flush) is most of a small batch's, so the next batch waits for
    // the one in flight unless a full one is ready; at most three in flight leave pool connections
    // for reads. Measured: about a fifth less PostgreSQL CPU per send (docs/benchmarks.md).
    this.batcher = new WriteBatcher((batch) => writer.flush(batch), { maxInFlight: 3, maxUnits: 100, overlapAt: 100 });
  }

  private readonly batcher: WriteBatcher;

  /** The number last leased (the lease may be being taken back; see idInstance()). */
  get instanceId(): number {
    return this.lease.instanceId;
  }

  idInstance(): number {
    return this.lease.current();
  }

  /** Group commit: the units of one event-loop turn become one statement (see unit-writer.ts). */
  batchWrite(unit: WriteUnit): Promise<void> {
    if (!this.lease.isHeld) return Promise.reject(new StoreUnavailable('writes wait for the instance number to be held again'));
    return this.batcher.submit(unit);
  }

  /**
   * `poolSize`: the connections of the query pool and the lease together (DATABASE_POOL_SIZE; see
   * connections.ts for the rest). `logger` hears of a lost and retaken lease.
   */
  static async open(url: string, poolSize?: number, logger?: Logger): Promise<PostgresStore> {
    const connections = new PostgresConnections(url, poolSize);
    try {
      const lease = await InstanceLease.acquire(() => connections.leaseClient(), logger);
      return new PostgresStore(connections, lease);
    } catch (error) {
      await connections.close();
      throw error;
    }
  }

  /** The chat cluster bus: one listening connection of its own, queries on the query pool. */
  openClusterBus(onError: (error: Error) => void): ClusterBus {
    const bus = new PostgresClusterBus(this.connections.clusterPool(), this.connections.pool, onError);
    this.buses.add(bus);
    return bus;
  }

  /** A session advisory lock on one pooled connection, held while `work` runs (its queries use the pool). */
  protected override async holdAcrossProcesses<T>(task: ExclusiveTask, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    const client = await this.connections.pool.connect();
    let broken = false;
    try {
      const res = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [EXCLUSIVE_NAMESPACE, EXCLUSIVE_TASKS[task]]);
      if (!res.rows[0]?.ok) return { ran: false };
      try {
        return { ran: true, value: await work() };
      } finally {
        await client.query('select pg_advisory_unlock($1, $2)', [EXCLUSIVE_NAMESPACE, EXCLUSIVE_TASKS[task]]).catch(() => {
          // A connection that cannot unlock is ended, which frees the lock.
          broken = true;
        });
      }
    } finally {
      client.release(broken);
    }
  }

  override poolUse(): PoolUse {
    const { totalCount, idleCount, waitingCount } = this.connections.pool;
    return { total: totalCount, idle: idleCount, waiting: waitingCount };
  }

  /** Other sessions running a query (without pg_read_all_stats, those of this database role: the service's), and the database's transactions so far. */
  override async storeLoad(): Promise<StoreLoad> {
    const { rows } = await sql<{ running: number; transactions: string }>`
      select
        (select count(*)::int from pg_stat_activity
          where state = 'active' and pid <> pg_backend_pid() and backend_type = 'client backend' and datname = current_database()) as running,
        (select (xact_commit + xact_rollback)::text from pg_stat_database where datname = current_database()) as transactions`.execute(this.db);
    const row = rows[0];
    return { queriesElsewhere: (row?.running ?? 0) + this.connections.pool.waitingCount, transactions: Number(row?.transactions ?? 0) };
  }

  /** Ready: the database answers and this process holds its instance number. */
  async ping(): Promise<void> {
    if (!this.lease.isHeld) throw new StoreUnavailable('the instance number is not held: its lease is being taken back');
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
    await this.lease.close();
    await this.db.destroy();
    await this.connections.close();
  }
}
