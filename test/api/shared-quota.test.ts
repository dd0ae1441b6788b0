import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../helpers/databases.js';
import { cli, startServerProcess, type ListeningServer } from '../helpers/processes.js';
import { freePort } from '../helpers/runtime.js';
import { ApiClient } from '../helpers/api-client.js';

const pgOk = await postgresAvailable();
if (!pgOk && process.env.CI === 'true') throw new Error('PostgreSQL is required in CI');

describe('Rate limits shared by two server processes on one PostgreSQL', { skip: pgOk ? false : 'PostgreSQL not reachable' }, () => {
  let db: TestDatabase;
  const servers: ListeningServer[] = [];
  let env: Record<string, string>;
  before(async () => {
    db = await createTestDatabase('postgres');
    env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir, BOOTSTRAP_ACCOUNT: 'false', AUTH_CACHE_MS: '0' };
    await cli(['migrate'], env);
    servers.push(await startServerProcess(env, await freePort()));
    servers.push(await startServerProcess(env, await freePort()));
  });
  after(async () => {
    for (const s of servers) await s.stop();
    await db?.drop();
  });

  test('one account quota counts requests on both instances', async () => {
    const account = await cli(['account', 'create', '--name', 'shared', '--plan', 'enterprise', '--hourly-limit', '5'], env);
    const { access_token } = await cli(['token', 'create', '--account', account.id], env);
    const [a, b] = servers.map((s) => new ApiClient(s.origin, access_token));
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await (i % 2 === 0 ? a! : b!).get('/v1/channels');
      statuses.push(res.status);
      remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
    assert.deepEqual(remaining, ['4', '3', '2', '1', '0', '0', '0']);
  });

  test('ids made by both instances are unique and channels created on one are seen by the other', async () => {
    const account = await cli(['account', 'create', '--name', 'ids', '--plan', 'enterprise'], env);
    const { access_token } = await cli(['token', 'create', '--account', account.id], env);
    const [a, b] = servers.map((s) => new ApiClient(s.origin, access_token));
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a! : b!).post('/v1/channels', { type: 'service_chat', name: `c${i}` })));
    const ids = made.map((r) => r.body.id as string);
    assert.equal(new Set(ids).size, 20);
    const listed = await a!.get('/v1/channels?max=100');
    assert.equal(listed.headers.get('x-total-count'), '20');
    const sorted = [...listed.body.map((c: { id: string }) => Number(c.id))];
    assert.deepEqual(
      sorted,
      [...sorted].sort((x, y) => x - y),
    );
  });
});
