import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { translateSqliteError } from '../errors.js';
import type { PendingUnit } from '../write-batcher.js';
import { unitRows, valueOf, type WriteUnit } from '../write-unit.js';

/**
 * Writes a batch of units in one SQLite transaction with prepared statements. If any unit fails
 * the batch is rolled back and its units are written again one transaction each, so one bad unit
 * fails alone (a savepoint per unit would cost more than the rare re-run). The work runs
 * synchronously while it holds Kysely's connection, so no other transaction interleaves.
 */
export class SqliteUnitWriter {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly writeOne: (unit: WriteUnit) => void;
  private readonly writeAll: (batch: PendingUnit[]) => void;

  constructor(
    private readonly connection: BetterSqlite3.Database,
    private readonly db: Kysely<Database>,
  ) {
    this.writeOne = connection.transaction((unit: WriteUnit) => this.write(unit));
    this.writeAll = connection.transaction((batch: PendingUnit[]) => {
      for (const p of batch) this.write(p.unit);
    });
  }

  async flush(batch: PendingUnit[]): Promise<void> {
    const outcomes = await this.db.connection().execute(async () => {
      try {
        this.writeAll(batch);
        return null;
      } catch {
        return batch.map((p) => {
          try {
            this.writeOne(p.unit);
            return null;
          } catch (error) {
            return translateSqliteError(error) ?? error;
          }
        });
      }
    });
    // Settled only now: the transaction has committed.
    batch.forEach((p, i) => {
      const error = outcomes?.[i];
      if (error) p.reject(error);
      else p.resolve();
    });
  }

  private write(unit: WriteUnit): void {
    for (const { table, rows, ignoreConflicts } of unitRows(unit)) {
      // Rows of one call site share their shape: the first row's keys name the columns.
      let columns = Object.keys(rows[0]!);
      let statement = this.statement(table, columns, ignoreConflicts);
      for (const row of rows) {
        const keys = Object.keys(row);
        if (keys.length !== columns.length || keys.some((k, i) => k !== columns[i])) {
          columns = keys;
          statement = this.statement(table, columns, ignoreConflicts);
        }
        const values = new Array<unknown>(columns.length);
        for (let i = 0; i < columns.length; i++) values[i] = valueOf(row, columns[i]!);
        statement.run(values);
      }
    }
  }

  private statement(table: string, columns: string[], ignoreConflicts: boolean): BetterSqlite3.Statement {
    const key = `${table}|${ignoreConflicts ? 1 : 0}|${columns.join(',')}`;
    let statement = this.statements.get(key);
    if (!statement) {
      const sql = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})${ignoreConflicts ? ' on conflict do nothing' : ''}`;
      statement = this.connection.prepare(sql);
      if (this.statements.size > 200) this.statements.clear();
      this.statements.set(key, statement);
    }
    return statement;
  }
}
