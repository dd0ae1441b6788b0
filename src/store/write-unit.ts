import type { Insertable } from 'kysely';
import type { Database } from './schema.js';

/**
 * A write unit: the rows one request inserts, all or nothing. Units are grouped by the store
 * (group commit): on SQLite the units of one event-loop turn share one transaction; on
 * PostgreSQL they become one statement. The caller makes every id itself, so nothing has to be
 * read back after the write.
 */
export const UNIT_TABLES = ['contacts', 'messages', 'events', 'deliveries', 'jobs', 'files', 'failovers', 'failover_steps'] as const;
export type UnitTable = (typeof UNIT_TABLES)[number];
export type UnitRows = { [T in UnitTable]?: Array<Insertable<Database[T]>> };

export interface WriteUnit {
  /** Rows inserted unless a row with the same unique key exists already (a contact made concurrently). */
  ensure?: UnitRows;
  insert: UnitRows;
}

export interface TableRows {
  table: UnitTable;
  rows: Array<Record<string, unknown>>;
  ignoreConflicts: boolean;
}

/** Rows of one table in a unit, in the order foreign keys need (a contact before its messages). */
export function unitRows(unit: WriteUnit): TableRows[] {
  // A plain array, not a generator: this runs for every unit on the write path.
  const out: TableRows[] = [];
  for (const table of UNIT_TABLES) {
    const ensured = unit.ensure?.[table];
    if (ensured && ensured.length > 0) out.push({ table, rows: ensured as Array<Record<string, unknown>>, ignoreConflicts: true });
    const inserted = unit.insert[table];
    if (inserted && inserted.length > 0) out.push({ table, rows: inserted as Array<Record<string, unknown>>, ignoreConflicts: false });
  }
  return out;
}

/** Columns of a set of rows: every key any row has (a missing nullable column is written as null). */
export function columnsOf(rows: ReadonlyArray<Record<string, unknown>>): string[] {
  const set = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) set.add(key);
  return [...set].sort();
}

export function valueOf(row: Record<string, unknown>, column: string): unknown {
  const v = row[column];
  return v === undefined ? null : v;
}
