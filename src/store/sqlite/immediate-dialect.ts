import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Dialect } from 'kysely';

/**
 * Kysely's SQLite driver with every transaction begun IMMEDIATE: it takes the write lock at its
 * start, waiting for it (busy_timeout) while the checkpoint thread or another process holds it.
 * A deferred transaction that read first cannot wait when it comes to write: SQLite refuses it at
 * once ("database is locked"), which under heavy writes made a read-then-write request fail.
 * One process serves the file, so taking the lock early costs no concurrency.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export function immediateSqliteDialect(database: BetterSqlite3.Database): Dialect {
  const plain = new SqliteDialect({ database });
  return {
    createDriver: () => new ImmediateSqliteDriver({ database }),
    createAdapter: () => plain.createAdapter(),
    createQueryCompiler: () => plain.createQueryCompiler(),
    createIntrospector: (db) => plain.createIntrospector(db),
  };
}
