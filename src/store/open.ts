import { isSqliteUrl } from '../config.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/** Opens the store the URL names: a postgres:// URL, or else a SQLite file path. */
export async function openStore(url: string): Promise<Store> {
  return isSqliteUrl(url) ? SqliteStore.open(url) : PostgresStore.open(url);
}
