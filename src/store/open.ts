import { isSqliteUrl } from './database-url.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';
import type { Logger } from '../lib/logger.js';

export interface StoreOptions {
  /** PostgreSQL: connections of the query pool (DATABASE_POOL_SIZE; see postgres/connections.ts). */
  poolSize?: number;
  /** PostgreSQL: told when the instance lease is lost and held again. */
  logger?: Logger;
}

/** Opens the store the URL names: a postgres:// URL, or else a SQLite file path. */
export async function openStore(url: string, options: StoreOptions = {}): Promise<Store> {
  return isSqliteUrl(url) ? SqliteStore.open(url) : PostgresStore.open(url, options.poolSize, options.logger);
}
