import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../helpers/databases.js';
import type { Database } from '../../src/store/schema.js';
import { LeasedRateCounter } from '../../src/store/postgres/leased-rate-counter.js';

const pgOk = await postgresAvailable();
if (!pgOk && process.env.CI === 'true') throw new Error('PostgreSQL is required in CI');

/** Two instances' counters on one database, each counting the statements it sends. */
describe('Leased rate counter (PostgreSQL)', { skip: pgOk ? false : 'PostgreSQL not reachable' }, () => {
  let db: TestDatabase;
  const pools: pg.Pool[] = [];
  const statements = [0, 0];
  let counters: LeasedRateCounter[];
  let admin: Kysely<Database>;

  before(async () => {
    // Made from the migrated template: the counters need the tables, not a store.
    db = await createTestDatabase('postgres');
    counters = [0, 1].map((i) => {
      const pool = new pg.Pool({ connectionString: db.url, max: 2 });
      // An idle connection ended from outside must fail a test through its statement, not
      // crash the file after its last test with an unhandled pool error.
      pool.on('error', () => undefined);
      pools.push(pool);
      return new LeasedRateCounter(
        new Kysely<Database>({
          dialect: new PostgresDialect({ pool }),
          log: () => {
            statements[i]! += 1;
          },
        }),
      );
    });
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    pool.on('error', () => undefined);
    pools.push(pool);
    admin = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  });
  after(async () => {
    for (const p of pools) await p.end();
    await db?.drop();
  });

  const shared = async (accountId: number, windowStart: number) =>
    Number(
      (await admin.selectFrom('rate_counters').select('count').where('account_id', '=', accountId).where('window_start', '=', windowStart).executeTakeFirst())
        ?.count ?? 0,
    );

  test('requests now and then, on either instance, take consecutive positions: exact at a small limit', async () => {
    const positions: number[] = [];
    for (let i = 0; i < 8; i++) positions.push(await counters[i % 2]!.hit(1, 1000, 5));
    assert.deepEqual(positions, [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(await shared(1, 1000), 8);
  });

  test('a flood on both instances admits exactly the limit, each position once, with far fewer statements than requests', async () => {
    const before = statements[0]! + statements[1]!;
    const limit = 3000;
    const positions: number[] = [];
    // 40 turns of 100 concurrent requests on each instance: 8000 requests.
    for (let turn = 0; turn < 40; turn++) {
      const hits = await Promise.all(Array.from({ length: 200 }, (_, i) => counters[i % 2]!.hit(2, 1000, limit)));
      positions.push(...hits);
    }
    assert.equal(new Set(positions).size, positions.length, 'a position was handed out twice');
    assert.equal(positions.filter((p) => p <= limit).length, limit);
    const count = await shared(2, 1000);
    // Every request counted; spare tickets still held are counted too, a bounded number.
    assert.ok(count >= 8000 && count <= 8000 + 2 * 1024, `shared count ${count}`);
    const sent = statements[0]! + statements[1]! - before;
    assert.ok(sent < 8000 / 10, `${sent} statements for 8000 requests`);
  });

  test('a busy account takes its tickets in blocks: requests one after another cost a statement now and then', async () => {
    const before = statements[0]!;
    const positions: number[] = [];
    for (let i = 0; i < 3000; i++) positions.push(await counters[0]!.hit(5, 1000, 1_000_000));
    assert.deepEqual(
      positions,
      Array.from({ length: 3000 }, (_, i) => i + 1),
    );
    const sent = statements[0]! - before;
    assert.ok(sent < 30, `${sent} statements for 3000 requests`);
  });

  test('near the limit the spare tickets shrink, so the quota is not stranded on one instance', async () => {
    const limit = 200;
    // Instance 0 runs hot, then instance 1 asks for what is left.
    for (let turn = 0; turn < 10; turn++) await Promise.all(Array.from({ length: 18 }, () => counters[0]!.hit(3, 1000, limit)));
    const late: number[] = [];
    for (let i = 0; i < 30; i++) late.push(await counters[1]!.hit(3, 1000, limit));
    // 180 used on instance 0; what instance 0 holds spare is at most a sixteenth of what was free.
    const admittedLate = late.filter((p) => p <= limit).length;
    assert.ok(admittedLate >= 20 - Math.ceil(20 / 16) - 1, `instance 1 got ${admittedLate} of the last 20`);
  });

  test('requests of the old window still waiting when the next window starts are answered from the old one', async () => {
    const [late, early] = await Promise.all([counters[0]!.hit(6, 1000, 100), counters[0]!.hit(6, 2000, 100)]);
    assert.equal(late, 1);
    assert.equal(early, 1);
    assert.equal(await shared(6, 1000), 1);
    assert.equal(await shared(6, 2000), 1);
  });

  test('a new window starts from one', async () => {
    await counters[0]!.hit(4, 1000, 100);
    assert.equal(await counters[0]!.hit(4, 2000, 100), 1);
    assert.equal(await counters[1]!.hit(4, 2000, 100), 2);
  });
});
