import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pg from 'pg';
import { PG_ADMIN_URL, dialects, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { freePort, startTestServer, type TestServer } from '../helpers/runtime.js';
import { baseEnv, startServerProcess } from '../helpers/processes.js';
import { eventually } from '../helpers/waits.js';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { parseMetrics } from './metrics-scrape.js';

/**
 * /healthz and /readyz: readiness follows the store (reachable, its schema current), the queues
 * of the process's role and its shutdown; liveness follows none of them. A worker answers both
 * (and /metrics) on a listener of its own.
 */

async function readyz(origin: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${origin}/readyz`);
  return { status: res.status, body: await res.json() };
}

const messagesOf = (body: any): string[] => (body.errors as { message: string }[]).map((e) => e.message);

for (const { dialect, skip } of await dialects()) {
  describe(`Readiness (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(dialect, { workers: true });
    });
    after(async () => s?.close());

    test('ready with every queue of its role worked; a migration missing from the store makes it 503 until it is back', async () => {
      assert.deepEqual(await readyz(s.origin), { status: 200, body: { status: 'ready', store: dialect } });
      const db = s.runtime.store.db;
      const { rows } = await sql<{ name: string; timestamp: string }>`select name, timestamp from schema_migrations order by name desc limit 1`.execute(db);
      const last = rows[0]!;
      await sql`delete from schema_migrations where name = ${last.name}`.execute(db);
      const missing = await readyz(s.origin);
      assert.equal(missing.status, 503);
      assert.equal(missing.body.status.code, '503', 'the error format');
      assert.deepEqual(messagesOf(missing.body), ["The store's schema lacks 1 migration(s): run `parley migrate`."]);
      assert.deepEqual((await (await fetch(`${s.origin}/healthz`)).json()) as unknown, { status: 'ok' }, 'alive all the same');
      await sql`insert into schema_migrations (name, timestamp) values (${last.name}, ${last.timestamp})`.execute(db);
      assert.equal((await readyz(s.origin)).status, 200);
    });

    test('not ready once shutting down, still alive', async () => {
      s.runtime.beginShutdown();
      const stopping = await readyz(s.origin);
      assert.equal(stopping.status, 503);
      assert.deepEqual(messagesOf(stopping.body), ['The process is shutting down.']);
      assert.equal((await fetch(`${s.origin}/healthz`)).status, 200);
    });
  });

  describe(`A worker's own listener: health and metrics (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let runtime: Runtime;
    let origin: string;
    before(async () => {
      db = await createTestDatabase(dialect);
      runtime = await createRuntime(
        loadConfig({
          DATABASE_URL: db.url,
          DATA_DIR: db.dataDir,
          LOG_LEVEL: 'silent',
          ROLE: 'worker',
          METRICS_PORT: '0',
          METRICS_HOST: '127.0.0.1',
          BOOTSTRAP_ACCOUNT: 'false',
        }),
      );
      origin = await runtime.operationsApp!.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await runtime?.close();
      await db?.drop();
    });

    test('not ready before its queues are worked, ready once they are; /healthz and /metrics all along; nothing of the API', async () => {
      assert.equal(runtime.config.operations.port, 0);
      const early = await readyz(origin);
      assert.equal(early.status, 503);
      assert.deepEqual(messagesOf(early.body).sort(), [
        'The jobs queue is not being worked.',
        'The nlp_training queue is not being worked.',
        'The webhooks queue is not being worked.',
      ]);
      assert.equal((await fetch(`${origin}/healthz`)).status, 200);
      runtime.startWorkers();
      assert.deepEqual(await readyz(origin), { status: 200, body: { status: 'ready', store: dialect } });
      const metrics = await fetch(`${origin}/metrics`);
      assert.equal(metrics.status, 200);
      const names = new Set(parseMetrics(await metrics.text()).map((x) => x.name));
      assert.ok(names.has('parley_queue_due_items') && names.has('nodejs_eventloop_lag_seconds'), [...names].join(' '));
      assert.equal((await fetch(`${origin}/v1/channels`)).status, 404);
    });

    test('`parley serve` as a worker answers /healthz, /readyz and /metrics on its PORT, and stops cleanly on SIGTERM', async () => {
      const port = await freePort();
      const worker = await startServerProcess({ ...baseEnv(db), ROLE: 'worker', LOG_LEVEL: 'warn' }, port);
      try {
        assert.equal((await readyz(worker.origin)).status, 200);
        assert.equal((await fetch(`${worker.origin}/healthz`)).status, 200);
        const metrics = await fetch(`${worker.origin}/metrics`);
        assert.equal(metrics.status, 200);
        assert.ok(parseMetrics(await metrics.text()).some((x) => x.name === 'parley_queue_due_items'));
      } finally {
        assert.equal(await worker.stop('SIGTERM'), 0, worker.output());
      }
    });

    test('a worker with no METRICS_PORT listens on PORT; an API process may not give both the same port', () => {
      const base = { DATABASE_URL: db.url, DATA_DIR: db.dataDir };
      assert.equal(loadConfig({ ...base, ROLE: 'worker', PORT: '9400' }).operations.port, 9400);
      assert.equal(loadConfig({ ...base, ROLE: 'api', PORT: '9400' }).operations.port, null);
      assert.throws(() => loadConfig({ ...base, ROLE: 'all', PORT: '9400', METRICS_PORT: '9400' }), /METRICS_PORT=9400/);
      assert.throws(() => loadConfig({ ...base, METRICS_TOKEN: 'short' }), /METRICS_TOKEN/);
    });
  });
}

for (const { dialect, skip } of await dialects()) {
  if (dialect !== 'postgres') continue;
  describe('Readiness follows the PostgreSQL store away and back', { skip }, () => {
    let s: TestServer;
    let admin: pg.Client;
    let name: string;
    before(async () => {
      s = await startTestServer(dialect, { workers: true });
      name = new URL(s.db.url).pathname.slice(1);
      admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
    });
    after(async () => {
      await admin?.query(`alter database ${name} allow_connections true`).catch(() => undefined);
      await admin?.end();
      await s?.close();
    });

    test('503 while the database refuses connections, 200 once it takes them again', async () => {
      assert.equal((await readyz(s.origin)).status, 200);
      // The database refuses new connections and the query pool's are ended; the instance
      // lease's connection (holding its advisory lock) and listening ones are left alone.
      await admin.query(`alter database ${name} allow_connections false`);
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where datname = $1 and pid <> pg_backend_pid()
            and pid not in (select pid from pg_locks where locktype = 'advisory')
            and query not ilike 'listen%'`,
        [name],
      );
      const away = await eventually(
        async () => {
          const answer = await readyz(s.origin);
          return answer.status === 503 ? answer : undefined;
        },
        10_000,
        'readyz 503',
      );
      assert.deepEqual(messagesOf(away.body), ['The store is not reachable.']);
      assert.equal((await fetch(`${s.origin}/healthz`)).status, 200, 'alive: nothing to restart');
      await admin.query(`alter database ${name} allow_connections true`);
      await eventually(async () => ((await readyz(s.origin)).status === 200 ? true : undefined), 10_000, 'readyz 200 again');
    });
  });
}
