/** Which store a database URL names: a postgres:// (or postgresql://) URL, or else a SQLite file path. */
export function isSqliteUrl(url: string): boolean {
  return !/^postgres(ql)?:\/\//.test(url);
}

/** Connections of the query pool on PostgreSQL when DATABASE_POOL_SIZE is not set (postgres/connections.ts). */
export const DEFAULT_POOL_SIZE = 10;
