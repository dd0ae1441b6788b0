import { Migrator, type Kysely } from 'kysely';
import { migrationProvider } from './migrations/index.js';
import type { Database } from './schema.js';
import { Repos, type DialectName, type ExclusiveTask, type PoolUse, type RateCounter, type Store, type StoreLoad } from './store.js';
import type { DeliveryQueue } from './delivery-queue.js';
import type { JobQueue } from './job-queue.js';
import type { WriteUnit } from './write-unit.js';
import type { ClusterBus } from './cluster-bus.js';
import { pendingMigrations, queueDepths, type QueueDepth } from './operations.js';

/** What both dialects share: repositories, transactions and migrations over one Kysely instance. */
export abstract class KyselyStore extends Repos implements Store {
  abstract readonly dialect: DialectName;
  abstract readonly instanceId: number;
  abstract readonly rateCounter: RateCounter;
  abstract readonly deliveryQueue: DeliveryQueue;
  abstract readonly jobQueue: JobQueue;

  constructor(db: Kysely<Database>) {
    super(db);
  }

  transaction<T>(work: (tx: Repos) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new Repos(trx)));
  }

  /** Tasks running in this process (runAlone): a second run here waits for nobody and is refused. */
  private readonly runningAlone = new Set<ExclusiveTask>();

  async runAlone<T>(task: ExclusiveTask, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    if (this.runningAlone.has(task)) return { ran: false };
    this.runningAlone.add(task);
    try {
      const held = await this.holdAcrossProcesses(task, work);
      return held;
    } finally {
      this.runningAlone.delete(task);
    }
  }

  /** The dialect's hold over other processes (PostgreSQL); SQLite's one process needs none. */
  protected async holdAcrossProcesses<T>(_task: ExclusiveTask, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    return { ran: true, value: await work() };
  }

  async migrate(): Promise<string[]> {
    const migrator = new Migrator({
      db: this.db,
      provider: migrationProvider,
      migrationTableName: 'schema_migrations',
      migrationLockTableName: 'schema_migrations_lock',
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  }

  abstract idInstance(): number;

  queueDepths(now: number): Promise<QueueDepth[]> {
    return queueDepths(this.db, now);
  }

  pendingMigrations(): Promise<string[]> {
    return pendingMigrations(this.db);
  }

  poolUse(): PoolUse | null {
    return null;
  }

  storeLoad(): Promise<StoreLoad | null> {
    return Promise.resolve(null);
  }

  abstract batchWrite(unit: WriteUnit): Promise<void>;
  abstract openClusterBus(onError: (error: Error) => void): ClusterBus | null;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
}
