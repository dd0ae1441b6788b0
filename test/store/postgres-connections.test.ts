import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { sql } from 'kysely';
import { createTestDatabase, postgresAvailable } from '../helpers/databases.js';
import { openStore } from '../../src/store/open.js';
import { WORKER_POOL_SIZE } from '../../src/store/postgres/connections.js';

const pgOk = await postgresAvailable();

/** Backends connected to the database, besides the one asking. */
async function backends(admin: pg.Client): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    'select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
  );
  return Number(rows[0]?.n);
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(what);
}

describe('PostgreSQL connections have one owner (the store)', { skip: pgOk ? false : 'PostgreSQL not reachable' }, () => {
  test('a busy process stays within its budget, and closing the store ends every connection it opened', async () => {
    const db = await createTestDatabase('postgres');
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const poolSize = 3;
      const store = await openStore(db.url, { poolSize });
      // Everything at once: more queries than the pool holds, the worker's pool and LISTEN, the chat bus.
      let listening!: () => void;
      const heard = new Promise<void>((resolve) => (listening = resolve));
      const unsubscribe = store.deliveryQueue.subscribe(() => listening());
      const bus = store.openClusterBus(() => undefined);
      assert.ok(bus, 'PostgreSQL has a cluster bus');
      // Held, as the socket.io adapter holds its listening connection; the store's close takes it back.
      await bus.pool.connect();
      const queries = Array.from({ length: 8 }, () => sql`select pg_sleep(0.3)`.execute(store.db));
      await Promise.all([heard, store.deliveryQueue.releaseOrphans(null), bus.pool.query('select 1')]);
      const busy = await backends(admin);
      await Promise.all(queries);
      // The query pool (the instance lease included), the worker's pool, one LISTEN client, the bus's listener.
      const budget = poolSize + WORKER_POOL_SIZE + 1 + 1;
      assert.ok(busy >= poolSize + 3 && busy <= budget, `${busy} connections while busy (budget ${budget})`);

      await unsubscribe();
      await store.close();
      await until(async () => (await backends(admin)) === 0, 'every connection ends with the store');
    } finally {
      await admin.end();
      await db.drop();
    }
  });
});

describe('SQLite connections', () => {
  test('SQLite has no cluster bus: one process owns the file', async () => {
    const db = await createTestDatabase('sqlite');
    const store = await openStore(db.url);
    try {
      assert.equal(
        store.openClusterBus(() => undefined),
        null,
      );
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
