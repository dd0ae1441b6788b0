import { describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { dialects, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { namingStatements } from '../../src/store/postgres/named-statements.js';

/** Kysely's statements on PostgreSQL: the frequent ones run as named prepared statements. */
for (const { dialect, skip, test } of (await dialects()).filter((d) => d.dialect === 'postgres')) {
  describe(`PostgreSQL statements through Kysely (${dialect})`, { skip }, () => {
    let database: TestDatabase;
    let pool: pg.Pool;
    let db: Kysely<Record<string, Record<string, unknown>>>;
    before(async () => {
      database = await createTestDatabase('postgres', { migrated: false });
      // One connection, so what it has prepared is what the queries below see.
      pool = new pg.Pool({ connectionString: database.url, max: 1 });
      db = new Kysely({ dialect: new PostgresDialect({ pool: namingStatements(pool) }) });
      await sql`create table t (id integer primary key, v text not null)`.execute(db);
      await sql`insert into t values (1, 'a'), (2, 'b')`.execute(db);
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    const prepared = async (): Promise<string[]> =>
      (await sql<{ name: string }>`select name from pg_prepared_statements where statement like ${'%from "t"%'}`.execute(db)).rows.map((r) => r.name);

    test('a query run a third time is prepared under a name, and the name serves it after that', async () => {
      const find = (id: number) => db.selectFrom('t').select(['id', 'v']).where('id', '=', id).executeTakeFirst();
      assert.deepEqual(await find(1), { id: 1, v: 'a' });
      assert.deepEqual(await find(2), { id: 2, v: 'b' });
      assert.deepEqual(await prepared(), [], 'not named after two runs');
      assert.deepEqual(await find(1), { id: 1, v: 'a' });
      const names = await prepared();
      assert.equal(names.length, 1);
      assert.match(names[0]!, /^parley_q_[0-9a-f]{20}$/);
      assert.deepEqual(await find(2), { id: 2, v: 'b' });
      assert.deepEqual(await prepared(), names, 'the same statement, not another');
    });

    test('a named SELECT * whose table gains a column answers with it (PostgreSQL refuses the old plan; the call runs again)', async () => {
      const all = () => db.selectFrom('t').selectAll().where('id', '>', 0).orderBy('id').execute();
      for (let i = 0; i < 3; i++)
        assert.deepEqual(await all(), [
          { id: 1, v: 'a' },
          { id: 2, v: 'b' },
        ]);
      await sql`alter table t add column w text not null default 'x'`.execute(db);
      assert.deepEqual(await all(), [
        { id: 1, v: 'a', w: 'x' },
        { id: 2, v: 'b', w: 'x' },
      ]);
      assert.deepEqual((await all())[0], { id: 1, v: 'a', w: 'x' });
    });

    test('statements without parameters stay unnamed', async () => {
      const before = (await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(db)).rows[0]!.n;
      for (let i = 0; i < 4; i++) await sql`select count(*) from t`.execute(db);
      const after = (await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(db)).rows[0]!.n;
      assert.equal(after, before);
    });
  });
}
