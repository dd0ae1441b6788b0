import { createHash } from 'node:crypto';
import type pg from 'pg';
import { isStoreUnavailable, translatePostgresError } from '../errors.js';
import type { PendingUnit } from '../write-batcher.js';
import { columnsOf, unitRows, UNIT_TABLES, type TableRows, type WriteUnit } from '../write-unit.js';

/**
 * An escaped lone surrogate (`\ud800`) that is not itself after an escaped backslash: JSON.stringify
 * writes a lone surrogate so, and writes a valid pair as its characters.
 */
const LONE_SURROGATE_ESCAPE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/**
 * The JSON text of rows, as PostgreSQL's json reader takes it. It refuses an escaped lone
 * surrogate, which a text parameter (UTF-8) used to carry as U+FFFD: the same replacement here,
 * so such text is stored as it was before, not refused.
 */
function jsonForPostgres(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes('\\ud') ? text.replace(LONE_SURROGATE_ESCAPE, '$1\\ufffd') : text;
}

/**
 * Writes a batch of units as ONE statement: per table, one insert of the rows of one json
 * parameter, chained as data-modifying CTEs. One round trip, atomic on its own (no BEGIN/COMMIT),
 * and foreign keys are checked at the end of the statement, so a contact and its first message
 * may travel together. The text depends only on which tables and columns a batch has, not on its
 * size, so it is a named prepared statement: parsed and planned once per connection.
 * If the batch fails, its units are written one by one so one bad unit fails alone; but not when
 * the connection was lost: the batch may have committed, so every unit fails as unavailable (a
 * retry with its idempotency key finds a unit that did commit) and none is written twice.
 */
export class PostgresUnitWriter {
  /** Statement names by text: a batch's text has a few shapes, each hashed once instead of on every batch. */
  private readonly names = new Map<string, string>();

  constructor(private readonly pool: pg.Pool) {}

  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (name === undefined) {
      name = `parley_unit_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      // Bounded: shapes come from code, not from input, but a leak here would be silent.
      if (this.names.size >= 64) this.names.clear();
      this.names.set(text, name);
    }
    return name;
  }

  async flush(batch: PendingUnit[]): Promise<void> {
    if (batch.length > 1) {
      try {
        await this.write(batch.map((p) => p.unit));
        for (const p of batch) p.resolve();
        return;
      } catch (error) {
        if (isStoreUnavailable(error)) {
          const unavailable = translatePostgresError(error);
          for (const p of batch) p.reject(unavailable);
          return;
        }
        // Fall through: find the unit(s) at fault.
      }
    }
    for (const p of batch) {
      try {
        await this.write([p.unit]);
        p.resolve();
      } catch (error) {
        p.reject(translatePostgresError(error));
      }
    }
  }

  private async write(units: WriteUnit[]): Promise<void> {
    const groups = new Map<string, TableRows>();
    for (const unit of units) {
      for (const { table, rows, ignoreConflicts } of unitRows(unit)) {
        const key = `${table}|${ignoreConflicts ? 1 : 0}`;
        let group = groups.get(key);
        if (!group) {
          group = { table, ignoreConflicts, rows: [] };
          groups.set(key, group);
        }
        group.rows.push(...rows);
      }
    }
    const ordered = [...groups.values()].sort(
      (a, b) => UNIT_TABLES.indexOf(a.table) - UNIT_TABLES.indexOf(b.table) || Number(b.ignoreConflicts) - Number(a.ignoreConflicts),
    );
    if (ordered.length === 0) return;
    // Each table's rows travel as ONE json parameter, read back as rows of the table's own type:
    // JSON.stringify is native, where an array parameter per column is escaped element by element
    // in JavaScript (the larger part of the statement's cost on the event loop). Columns no row
    // has are left out of the insert, so they take their defaults.
    const values: string[] = [];
    const inserts = ordered.map((group) => {
      values.push(jsonForPostgres(group.rows));
      const names = columnsOf(group.rows)
        .map((c) => `"${c}"`)
        .join(', ');
      return `insert into "${group.table}" (${names}) select ${names} from json_populate_recordset(null::"${group.table}", $${values.length}::json)${group.ignoreConflicts ? ' on conflict do nothing' : ''}`;
    });
    const text =
      inserts.length === 1
        ? inserts[0]!
        : `with ${inserts
            .slice(0, -1)
            .map((s, i) => `w${i} as (${s})`)
            .join(', ')} ${inserts[inserts.length - 1]!}`;
    await this.pool.query({ name: this.nameOf(text), text, values });
  }
}
