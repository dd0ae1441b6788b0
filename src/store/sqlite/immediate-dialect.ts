import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Dialect, type SqliteDatabase } from 'kysely';

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

/** Statements kept per SQL text at most; the queries come from code, so a few hundred cover them. */
const MAX_STATEMENTS = 500;

/**
 * The connection as Kysely sees it, with its prepared statements kept by SQL text. Kysely
 * prepares every query it runs, and for a query with joins or subqueries preparing costs more
 * than running it. Kysely runs one query at a time on the connection (a stream holds it to its
 * end), so a kept statement is never asked for while it runs; should one still be iterating, the
 * query gets a statement of its own rather than an error.
 */
function keepingStatements(database: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      const kept = statements.get(sql);
      if (kept && !kept.busy) return kept;
      const statement = database.prepare(sql);
      if (!kept) {
        if (statements.size >= MAX_STATEMENTS) statements.clear();
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

export function immediateSqliteDialect(database: BetterSqlite3.Database): Dialect {
  const plain = new SqliteDialect({ database });
  const kept = keepingStatements(database);
  return {
    createDriver: () => new ImmediateSqliteDriver({ database: kept }),
    createAdapter: () => plain.createAdapter(),
    createQueryCompiler: () => plain.createQueryCompiler(),
    createIntrospector: (db) => plain.createIntrospector(db),
  };
}
