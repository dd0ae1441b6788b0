import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Database } from '../schema.js';
import { KyselyStore } from '../base.js';
import type { RateCounter } from '../store.js';

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

  constructor(readonly connection: BetterSqlite3.Database) {
    super(new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) }));
  }

  static open(path: string): SqliteStore {
    const connection = new BetterSqlite3(path);
    connection.pragma('journal_mode = WAL');
    connection.pragma('synchronous = NORMAL');
    connection.pragma('foreign_keys = ON');
    connection.pragma('busy_timeout = 5000');
    return new SqliteStore(connection);
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}
