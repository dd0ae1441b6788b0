import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

/** A store on a fresh file whose connection counts the statements prepared per SQL text. */
function countingStore(): { store: SqliteStore; prepared: Map<string, number>; done: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'parley-statements-'));
  const store = SqliteStore.open(join(dir, 'db.sqlite'));
  const prepared = new Map<string, number>();
  const prepare = store.connection.prepare.bind(store.connection);
  store.connection.prepare = ((text: string) => {
    prepared.set(text, (prepared.get(text) ?? 0) + 1);
    return prepare(text);
  }) as typeof store.connection.prepare;
  return {
    store,
    prepared,
    done: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('SQLite statements through Kysely', () => {
  test('a query run again uses the statement prepared the first time', async () => {
    const { store, prepared, done } = countingStore();
    try {
      await sql`create table t (id integer primary key, v text not null)`.execute(store.db);
      for (let i = 0; i < 3; i++)
        await store.db
          .insertInto('t' as never)
          .values({ v: `v${i}` } as never)
          .execute();
      for (let i = 0; i < 3; i++) {
        const rows = await store.db
          .selectFrom('t' as never)
          .select(['v'] as never)
          .where('id' as never, '>', i as never)
          .execute();
        assert.equal(rows.length, 3 - i);
      }
      const selects = [...prepared].filter(([text]) => text.startsWith('select'));
      assert.deepEqual(
        selects.map(([, n]) => n),
        [1],
      );
      assert.equal([...prepared].find(([text]) => text.startsWith('insert'))?.[1], 1);
    } finally {
      await done();
    }
  });

  test('a kept statement sees a column added after it was prepared', async () => {
    const { store, done } = countingStore();
    try {
      await sql`create table t (id integer primary key, v text not null)`.execute(store.db);
      await store.db
        .insertInto('t' as never)
        .values({ v: 'a' } as never)
        .execute();
      const all = () =>
        store.db
          .selectFrom('t' as never)
          .selectAll()
          .execute() as Promise<Array<Record<string, unknown>>>;
      assert.deepEqual(await all(), [{ id: 1, v: 'a' }]);
      await sql`alter table t add column w text default 'x'`.execute(store.db);
      assert.deepEqual(await all(), [{ id: 1, v: 'a', w: 'x' }]);
    } finally {
      await done();
    }
  });
});
