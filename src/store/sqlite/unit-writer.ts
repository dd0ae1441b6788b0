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
  private readonly shapes = new Map<string, Array<{ columns: string[]; ignoreConflicts: boolean; statement: BetterSqlite3.Statement }>>();
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
      for (const row of rows) {
        const { columns, statement } = this.statementFor(table, ignoreConflicts, row);
        const values = new Array<unknown>(columns.length);
        for (let i = 0; i < columns.length; i++) values[i] = valueOf(row, columns[i]!);
        statement.run(values);
      }
    }
  }

  /** The prepared insert for a row's shape (its keys in order): a table has a few shapes, one per call site. */
  private statementFor(table: string, ignoreConflicts: boolean, row: Record<string, unknown>): { columns: string[]; statement: BetterSqlite3.Statement } {
    const keys = Object.keys(row);
    const shapes = this.shapes.get(table) ?? [];
    for (const shape of shapes) {
      if (shape.ignoreConflicts === ignoreConflicts && shape.columns.length === keys.length && shape.columns.every((c, i) => c === keys[i])) return shape;
    }
    const sql = `insert into "${table}" (${keys.map((c) => `"${c}"`).join(', ')}) values (${keys.map(() => '?').join(', ')})${ignoreConflicts ? ' on conflict do nothing' : ''}`;
    const shape = { columns: keys, ignoreConflicts, statement: this.connection.prepare(sql) };
    // Bounded: shapes come from code, not from input, but a leak here would be silent.
    if (shapes.length >= 16) shapes.pop();
    shapes.unshift(shape);
    this.shapes.set(table, shapes);
    return shape;
  }
}
