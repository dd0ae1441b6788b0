/**
 * Bulk writes of the cost-growth benchmark: rows made by SQL set statements (no per-row round
 * trip), on either store.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { IdGenerator } from '../../src/lib/ids.js';
import type { Database } from '../../src/store/schema.js';

/** Rows of one statement (and transaction): large enough to be quick, small enough for the WAL. */
export const CHUNK = 250_000;

/** `select i from <0..count-1 from start>` in the store's dialect, as a FROM source named s(i). */
export function series(postgres: boolean, start: number, count: number): RawBuilder<unknown> {
  return postgres
    ? sql`generate_series(${sql.lit(start)}::bigint, ${sql.lit(start + count - 1)}::bigint) as s(i)`
    : sql`(with recursive r(i) as (select ${sql.lit(start)} union all select i + 1 from r where i < ${sql.lit(start + count - 1)}) select i from r) as s`;
}

/**
 * A base of ids of the time `at`, from an instance number (14 and up) no process of the benchmark
 * holds: base + i stays unique and far below the ids the service makes now.
 */
export function idBase(instance: number, at: number): number {
  return new IdGenerator(instance, () => at).nextNumber();
}

/** Fresh statistics (and the visibility map), then the bulk write's pages flushed, as a store that grew over time has them. */
export async function settle(db: Kysely<Database>, postgres: boolean): Promise<void> {
  // Autovacuum sees to statistics and the visibility map on a store that grew over time (index-only scans need the map).
  await sql.raw(postgres ? 'vacuum analyze' : 'analyze').execute(db);
  // Flushed now, not by a checkpoint during the measurement (a store that grew over time has no such burst behind it).
  await sql.raw(postgres ? 'checkpoint' : 'pragma wal_checkpoint(truncate)').execute(db);
}

/**
 * `count` copies of the row `templateId` of `table`, every column copied from it (`t.<column>`)
 * unless `overrides` gives an expression of `s.i` (0 .. count-1) for it.
 */
export async function copyRows(
  db: Kysely<Database>,
  postgres: boolean,
  table: 'events' | 'deliveries' | 'messages' | 'jobs',
  templateId: number,
  count: number,
  overrides: (i: RawBuilder<number>) => Record<string, RawBuilder<unknown>>,
): Promise<void> {
  const template = await sql<Record<string, unknown>>`select * from ${sql.table(table)} where id = ${templateId}`.execute(db);
  const row = template.rows[0];
  if (!row) throw new Error(`no ${table} row ${templateId} to copy`);
  const columns = Object.keys(row);
  const exprs = overrides(sql<number>`s.i`);
  const values = columns.map((c) => exprs[c] ?? sql.ref(`t.${c}`));
  for (let start = 0; start < count; start += CHUNK) {
    const n = Math.min(CHUNK, count - start);
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
      select ${sql.join(values)} from ${sql.table(table)} as t cross join ${series(postgres, start, n)}
      where t.id = ${sql.lit(templateId)}`.execute(db);
  }
}
