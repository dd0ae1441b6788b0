import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createTestDatabase, postgresAvailable, PG_ADMIN_URL, type TestDatabase } from '../helpers/databases.js';
import { freePort } from '../helpers/runtime.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { accountWithToken, baseEnv, spawnServer, type ServerProcess } from '../helpers/processes.js';
import { assertErrorBody } from '../helpers/error-format.js';
import { eventually } from '../helpers/waits.js';
import { LOCK_NAMESPACE } from '../../src/store/postgres/instance-lease.js';

const pgOk = await postgresAvailable();

/** The test's own connection to read what was stored (the termination ends it too: it connects again). */
async function reader(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * The database ends every session of the service at once (as a restart, a failover, an
 * administrator or a pooler recycling connections would): the processes stay up, refuse what
 * they cannot do in the error format, and serve again by themselves.
 */
describe('PostgreSQL: the database ending the service’s connections', { skip: pgOk ? false : 'PostgreSQL not reachable' }, () => {
  let db: TestDatabase;
  let admin: pg.Client;
  /** On another database: it ends the test database's sessions, never its own. */
  let terminator: pg.Client;
  const servers: ServerProcess[] = [];

  before(async () => {
    db = await createTestDatabase('postgres');
    admin = await reader(db.url);
    terminator = new pg.Client({ connectionString: PG_ADMIN_URL });
    await terminator.connect();
  });
  after(async () => {
    for (const s of servers) await s.kill('SIGKILL');
    await admin?.end();
    await terminator?.end();
    await db?.drop();
  });

  /** Ends every backend of the test database (the test's own reading connection too); answers how many. */
  async function terminateAll(): Promise<number> {
    const name = new URL(db.url).pathname.slice(1);
    const { rows } = await terminator.query<{ ended: boolean }>('select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = $1', [name]);
    await admin.end().catch(() => undefined);
    admin = await reader(db.url);
    return rows.filter((r) => r.ended).length;
  }

  async function start(env: Record<string, string>): Promise<{ server: ServerProcess; origin: string }> {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const server = spawnServer({ ...env, PORT: String(port), PUBLIC_URL: `${origin}/v1` });
    servers.push(server);
    await server.waitForLine(/parley started/, 30_000);
    return { server, origin };
  }

  async function ready(origin: string): Promise<boolean> {
    try {
      return (await fetch(`${origin}/readyz`)).status === 200;
    } catch {
      return false;
    }
  }

  /** How many times the server logged its instance number held again (failing at once if it died). */
  const retaken = (server: ServerProcess) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) assert.fail(`the server exited:\n${server.output().slice(-3000)}`);
    return server
      .output()
      .split('\n')
      .filter((l) => /instance number (is held again|was taken meanwhile)/.test(l)).length;
  };

  async function channelOf(api: ApiClient): Promise<string> {
    const created = await api.post('/v1/channels', {
      type: 'mobile',
      name: 'resilience',
      mode: 'test',
      provider: { type: 'smsprovider', sender_id: 'Parley', access_token: 'test', signing_key: 'test' },
    });
    assert.equal(created.status, 201, created.text);
    return created.body.id as string;
  }

  const send = (api: ApiClient, channelId: string, n: number, key: string) =>
    api.post(
      '/v1/messages',
      {
        channel: { id: channelId },
        contact: { phone_number: `+4206011${String(n % 10000).padStart(5, '0')}` },
        content: { type: 'text', payload: `message ${n}` },
      },
      { 'Idempotency-Key': key },
    );

  test('an idle server whose connections are all ended stays up, takes its instance number back and serves', { timeout: 120_000 }, async () => {
    const env = baseEnv(db, { ROLE: 'all', LOG_LEVEL: 'info', WORKER_POLL_MS: '200' });
    const { token } = await accountWithToken(env);
    const { server, origin } = await start(env);
    const client = new ApiClient(origin, token);
    const channelId = await channelOf(client);
    // The lease, the query pool, the worker's pool and LISTENs, the chat bus: all idle now.
    await eventually(async () => ((await ready(origin)) ? true : undefined), 20_000, 'ready');
    assert.ok((await terminateAll()) >= 3, 'the server held connections');

    await eventually(async () => (retaken(server) >= 1 ? true : undefined), 30_000, 'the instance number held again');
    await eventually(async () => ((await ready(origin)) ? true : undefined), 30_000, 'ready again');
    const sent = await send(client, channelId, 1, randomUUID());
    assert.equal(sent.status, 201, sent.text);
    const stored = await admin.query('select id from messages where id = $1', [sent.body.id]);
    assert.equal(stored.rowCount, 1);
    assert.equal(server.child.exitCode, null, `the server runs:\n${server.output()}`);
    assert.doesNotMatch(server.output(), /unhandled|Unhandled 'error' event|\n\s+at /, 'no crash, no stack trace');
    await server.kill('SIGTERM');
    assert.equal((await server.exited).code, 0);
  });

  test('under Send Message load on two instances, ending every connection loses no 201 and issues no id twice', { timeout: 240_000 }, async () => {
    const env = baseEnv(db, { LOG_LEVEL: 'info', WORKER_POLL_MS: '200' });
    const { token } = await accountWithToken(env);
    const a = await start({ ...env, ROLE: 'all' });
    const b = await start({ ...env, ROLE: 'api' });
    const clients = [new ApiClient(a.origin, token), new ApiClient(b.origin, token)];
    const channelId = await channelOf(clients[0]!);
    for (const { origin } of [a, b]) await eventually(async () => ((await ready(origin)) ? true : undefined), 20_000, 'ready');

    const accepted = new Map<string, string>(); // idempotency key -> message id
    const unavailable: Array<{ key: string; n: number }> = []; // answered 503
    const other: string[] = [];
    let cutOff = 0;
    let sending = true;
    let n = 0;
    const lane = async (api: ApiClient) => {
      while (sending) {
        const key = randomUUID();
        const number = n++;
        let res: ApiResponse;
        try {
          res = await send(api, channelId, number, key);
        } catch {
          cutOff += 1; // the server is gone: counted, and the test fails below
          await new Promise((resolve) => setTimeout(resolve, 50));
          continue;
        }
        if (res.status === 201) accepted.set(key, String(res.body.id));
        else if (res.status === 503) {
          assertErrorBody(res.body, 503, 'a send while the store is away');
          assert.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After on a 503');
          unavailable.push({ key, n: number });
        } else other.push(`${res.status} ${res.text.slice(0, 200)}`);
      }
    };
    const lanes = Array.from({ length: 8 }, (_, i) => lane(clients[i % 2]!));
    await eventually(async () => (accepted.size >= 50 ? true : undefined), 60_000, '50 messages accepted');
    // Twice, so the second cut also meets connections opened again after the first.
    for (let round = 1; round <= 2; round++) {
      const before = accepted.size;
      const retakenBefore = [retaken(a.server), retaken(b.server)];
      assert.ok((await terminateAll()) >= 2, 'the servers held connections');
      await eventually(
        async () => (retaken(a.server) > retakenBefore[0]! && retaken(b.server) > retakenBefore[1]! ? true : undefined),
        60_000,
        `both instances hold their number again (round ${round})`,
      );
      await eventually(async () => (accepted.size >= before + 50 ? true : undefined), 60_000, `sends accepted again (round ${round})`);
    }
    sending = false;
    await Promise.all(lanes);

    assert.equal(cutOff, 0, 'no request lost its connection (no server died)');
    assert.deepEqual(other, [], 'every answer was 201 or 503');
    for (const s of [a.server, b.server]) assert.equal(s.child.exitCode, null, `the servers run:\n${s.output()}`);
    const ids = [...accepted.values()];
    assert.equal(new Set(ids).size, ids.length, 'no id answered twice');
    // Every 201 is stored.
    const stored = await admin.query<{ id: string }>('select id::text as id from messages where id = any($1::bigint[])', [ids]);
    assert.equal(stored.rowCount, ids.length, 'every message answered 201 is stored');

    // A 503'd send retried with its key: found if it committed, else sent now; either way once.
    let found = 0;
    for (const { key, n: number } of unavailable) {
      const res = await send(clients[0]!, channelId, number, key);
      assert.equal(res.status, 201, `a retry after 503 is found or sent anew: ${res.text}`);
      assert.ok(!ids.includes(String(res.body.id)), 'the retry’s message is no other 201’s');
      if (res.headers.get('idempotent-replayed') === 'true') found += 1;
      ids.push(String(res.body.id));
    }
    const count = await admin.query<{ n: string; distinct_ids: string }>('select count(*) as n, count(distinct id) as distinct_ids from messages');
    assert.equal(count.rows[0]!.n, count.rows[0]!.distinct_ids);
    process.stderr.write(
      `# ${accepted.size} sends answered 201, ${unavailable.length} answered 503 while the store was away (${found} of them had committed)\n`,
    );
    for (const s of [a.server, b.server]) {
      assert.doesNotMatch(s.output(), /Unhandled 'error' event|\n\s+at /, 'no crash, no stack trace');
      await s.kill('SIGTERM');
      assert.equal((await s.exited).code, 0);
    }
  });

  test(
    'while the database refuses connections, writes answer 503 and readiness says not ready; a number taken meanwhile is not used again',
    { timeout: 120_000 },
    async () => {
      const env = baseEnv(db, { ROLE: 'api', LOG_LEVEL: 'info' });
      const { token } = await accountWithToken(env);
      const { server, origin } = await start(env);
      const api = new ApiClient(origin, token);
      const channelId = await channelOf(api);
      const first = await send(api, channelId, 1, randomUUID());
      assert.equal(first.status, 201, first.text);
      const instanceOf = (id: string) => Math.floor(Number(id) / 256) % 16;
      const number = instanceOf(String(first.body.id));

      // A session of the test's stays; every other one ends, and no new one is let in.
      const holder = await reader(db.url);
      const name = new URL(db.url).pathname.slice(1);
      try {
        await terminator.query(`alter database ${name} with allow_connections false`);
        await terminator.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> $2', [
          name,
          (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid,
        ]);
        // The server's number, taken by "another process" as soon as the server's session has ended.
        await holder.query('select pg_advisory_lock($1, $2)', [LOCK_NAMESPACE, number]);

        const refused = await send(api, channelId, 2, randomUUID());
        assert.equal(refused.status, 503, refused.text);
        assertErrorBody(refused.body, 503, 'Send Message while the database refuses connections');
        assert.equal(refused.headers.get('retry-after'), '2');
        const readiness = await fetch(`${origin}/readyz`);
        assert.equal(readiness.status, 503);
        assertErrorBody(await readiness.json(), 503, 'readiness');
        assert.equal(retaken(server), 0);
      } finally {
        await terminator.query(`alter database ${name} with allow_connections true`);
      }
      await eventually(async () => (retaken(server) >= 1 ? true : undefined), 30_000, 'an instance number held again');
      assert.match(server.output(), /instance number was taken meanwhile/);
      await eventually(async () => ((await ready(origin)) ? true : undefined), 30_000, 'ready again');
      const again = await send(api, channelId, 3, randomUUID());
      assert.equal(again.status, 201, again.text);
      assert.notEqual(instanceOf(String(again.body.id)), number, 'ids are issued under another number');
      await holder.end();
      admin = await reader(db.url);
      assert.equal(server.child.exitCode, null);
      await server.kill('SIGTERM');
      assert.equal((await server.exited).code, 0);
    },
  );
});
