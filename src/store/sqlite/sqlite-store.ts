import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import type { Database } from '../schema.js';
import { KyselyStore } from '../base.js';
import type { RateCounter } from '../store.js';
import type { DeliveryQueue } from '../delivery-queue.js';
import { SqliteDeliveryQueue } from './delivery-queue.js';
import type { JobQueue } from '../job-queue.js';
import { SqliteJobQueue } from './job-queue.js';
import { SqliteUnitWriter } from './unit-writer.js';
import { WriteBatcher } from '../write-batcher.js';
import type { WriteUnit } from '../write-unit.js';
import { Checkpointer } from './checkpointer.js';
import { immediateSqliteDialect } from './immediate-dialect.js';
import { createRequire } from 'node:module';
import { ensurePrivateFileSync } from '../../lib/private-files.js';

/**
 * The embedded store. One process owns the file (WAL mode, synchronous=NORMAL: a committed
 * transaction survives a process crash; an OS crash may lose the last moments, as documented).
 * Rate counters live in memory, as only one process serves the file.
 */
class MemoryRateCounter implements RateCounter {
  private readonly counts = new Map<string, number>();

  hit(accountId: number, windowStart: number): Promise<number> {
    const key = `${accountId}:${windowStart}`;
    const next = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, next);
    return Promise.resolve(next);
  }

  used(accountId: number, windowStart: number): Promise<number> {
    return Promise.resolve(this.counts.get(`${accountId}:${windowStart}`) ?? 0);
  }

  prune(before: number): Promise<void> {
    for (const key of this.counts.keys()) {
      if (Number(key.split(':')[1]) < before) this.counts.delete(key);
    }
    return Promise.resolve();
  }
}

export class SqliteStore extends KyselyStore {
  readonly dialect = 'sqlite' as const;
  readonly instanceId = 0;
  readonly rateCounter: RateCounter = new MemoryRateCounter();
  readonly deliveryQueue: DeliveryQueue;
  readonly jobQueue: JobQueue;

  constructor(readonly connection: BetterSqlite3.Database) {
    super(new Kysely<Database>({ dialect: immediateSqliteDialect(connection) }));
    this.deliveryQueue = new SqliteDeliveryQueue(connection, this.db);
    this.jobQueue = new SqliteJobQueue(connection, this.db);
    const writer = new SqliteUnitWriter(connection, this.db);
    this.batcher = new WriteBatcher((batch) => writer.flush(batch), { maxInFlight: 1, maxUnits: 1000 });
  }

  private readonly batcher: WriteBatcher;

  /** Group commit: the units of one event-loop turn share one transaction (see unit-writer.ts). */
  batchWrite(unit: WriteUnit): Promise<void> {
    return this.batcher.submit(unit);
  }

  static open(path: string): SqliteStore {
    // The file is made 0600 before SQLite opens it; SQLite gives its -wal and -shm files the
    // database file's mode.
    if (path !== ':memory:' && path !== '' && !path.startsWith('file:')) ensurePrivateFileSync(path);
    const connection = new BetterSqlite3(path);
    connection.pragma('journal_mode = WAL');
    connection.pragma('synchronous = NORMAL');
    connection.pragma('foreign_keys = ON');
    connection.pragma('busy_timeout = 5000');
    const store = new SqliteStore(connection);
    if (path !== ':memory:' && path !== '') store.checkpointer = new Checkpointer(connection, path, createRequire(import.meta.url).resolve('better-sqlite3'));
    return store;
  }

  /** WAL checkpoints in a worker thread, off the event loop (checkpointer.ts). */
  private checkpointer: Checkpointer | null = null;

  /** One process owns the file: its number is always 0. */
  idInstance(): number {
    return 0;
  }

  /** One process owns the file: no other instance to pass messages to. */
  openClusterBus(): null {
    return null;
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.batcher.drain();
    await this.checkpointer?.stop();
    await this.db.destroy();
  }
}
