import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/** A text run this many times gets a name: one-off statements (migrations, admin edits) stay unnamed. */
const NAME_AFTER = 3;
/**
 * At most this many names per process, each prepared once on each connection that runs it. The
 * hot paths have a few dozen texts; texts that differ only in the length of an IN list are many,
 * and past the limit run unnamed as before.
 */
const MAX_NAMED = 200;
/** How many texts not yet named are counted. */
const MAX_COUNTED = 2_000;

/** The statement's name for `text`: the same on every connection, and another text never has it. */
export function statementName(prefix: string, text: string): string {
  return `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
}

/**
 * A pool for Kysely whose frequent statements run as named prepared statements: PostgreSQL
 * parses a text once per connection instead of on every call, and may keep its plan. A request
 * of the API runs the same few reads each time (the token's account, the contact), so each saves
 * the database a parse and a plan.
 *
 * A named statement whose result columns changed under it (a column added to a table it selects
 * with `*`) is refused by PostgreSQL; the text then gets a new name and the call runs again (inside
 * a transaction, which the refusal has aborted, the call fails and the next one has the new name).
 */
export function namingStatements(pool: pg.Pool): PostgresPool {
  const counts = new Map<string, number>();
  const names = new Map<string, string>();
  let renamed = 0;

  const nameOf = (text: string): string | undefined => {
    const name = names.get(text);
    if (name !== undefined || names.size >= MAX_NAMED) return name;
    const count = (counts.get(text) ?? 0) + 1;
    if (count < NAME_AFTER) {
      if (counts.size < MAX_COUNTED) counts.set(text, count);
      return undefined;
    }
    counts.delete(text);
    const named = statementName('parley_q', text);
    names.set(text, named);
    return named;
  };

  // One wrapper per connection: Kysely keeps its own state per client object.
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const run = async (text: string, values: unknown[]): Promise<PostgresQueryResult<unknown>> => {
      const name = values.length > 0 ? nameOf(text) : undefined;
      if (name === undefined) return (await client.query(text, values)) as PostgresQueryResult<unknown>;
      try {
        return (await client.query({ name, text, values })) as PostgresQueryResult<unknown>;
      } catch (error) {
        if (!resultTypeChanged(error)) throw error;
        // The old name stays prepared on the connections that have it; it is not used again.
        names.set(text, statementName(`parley_q${++renamed}`, text));
        return (await client.query(text, values)) as PostgresQueryResult<unknown>;
      }
    };
    return {
      query: ((text: string, values: readonly unknown[]) => run(text, [...values])) as PostgresPoolClient['query'],
      release: () => client.release(),
    };
  };

  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let kept = wrapped.get(client);
      if (kept === undefined) {
        kept = wrap(client);
        wrapped.set(client, kept);
      }
      return kept;
    },
    end: () => pool.end(),
  };
}

/** PostgreSQL's refusal of a prepared statement whose result columns are no longer those it was prepared with. */
function resultTypeChanged(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  return e?.code === '0A000' && /cached plan must not change result type/.test(e.message ?? '');
}
