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
    const poolSize = 3;
    // Set while the store is open: closed in `finally` if an assertion fails first.
    let open: Awaited<ReturnType<typeof openStore>> | null = null;
    try {
      const store = await openStore(db.url, { poolSize });
      open = store;
      // Everything at once: more queries than the pool holds, the worker's pool and LISTEN, the chat bus.
      let listening!: () => void;
      const heard = new Promise<void>((resolve) => (listening = resolve));
      const unsubscribe = store.deliveryQueue.subscribe(() => listening());
      const bus = store.openClusterBus(() => undefined);
      assert.ok(bus, 'PostgreSQL has a cluster bus');
      // Held, as the socket.io adapter holds its listening connection; the store's close takes it back.
      await bus.pool.connect();
      const queries = Array.from({ length: 8 }, () => sql`select pg_sleep(0.3)`.execute(store.db));
      let running = true;
      const all = Promise.all(queries).finally(() => (running = false));
      await Promise.all([heard, store.deliveryQueue.releaseOrphans(null), bus.pool.query('select 1')]);
      // Counted until the queries end: connections open as they are needed, so one count could come early.
      let busy = 0;
      while (running) {
        busy = Math.max(busy, await backends(admin));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await all;
      // The query pool (the instance lease included), the worker's pool, one LISTEN client, the bus's listener.
      const budget = poolSize + WORKER_POOL_SIZE + 1 + 1;
      assert.ok(busy >= poolSize + 3 && busy <= budget, `at most ${busy} connections while busy (budget ${budget})`);

      await unsubscribe();
      open = null;
      await store.close();
      await until(async () => (await backends(admin)) === 0, 'every connection ends with the store');
    } finally {
      // Closed even when an assertion failed: a store left open would try to reconnect to the
      // dropped database for ever, and the test process would never end.
      await open?.close().catch(() => undefined);
      await admin.end();
      await db.drop();
    }
  });
});

describe('PostgreSQL LISTEN ends with the store', { skip: pgOk ? false : 'PostgreSQL not reachable' }, () => {
  test('closing the store stops the listeners its subscribers never stopped: none connects again', async () => {
    const db = await createTestDatabase('postgres');
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    let open: Awaited<ReturnType<typeof openStore>> | null = null;
    try {
      const store = await openStore(db.url, { poolSize: 2 });
      open = store;
      let deliveries!: () => void;
      let jobs!: () => void;
      const heard = Promise.all([new Promise<void>((resolve) => (deliveries = resolve)), new Promise<void>((resolve) => (jobs = resolve))]);
      // Subscribed and never unsubscribed, as a worker that fails before its own shutdown leaves them.
      store.deliveryQueue.subscribe(() => deliveries());
      store.jobQueue.subscribe(() => jobs());
      await heard;
      open = null;
      await store.close();
      await until(async () => (await backends(admin)) === 0, 'every connection ends with the store');
      // A listener that was still running would connect again a second after its connection ended.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(await backends(admin), 0, 'a listener connected again after the store closed');
    } finally {
      await open?.close().catch(() => undefined);
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
