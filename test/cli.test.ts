import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { cli, cliRaw, startServerProcess } from './helpers/processes.js';
import { freePort } from './helpers/runtime.js';
import { ApiClient } from './helpers/api-client.js';
import { MIGRATIONS } from '../src/store/migrations/index.js';

for (const { dialect, skip } of await dialects()) {
  describe(`CLI and first start (${dialect})`, { skip }, () => {
    const dbs: TestDatabase[] = [];
    after(async () => {
      for (const db of dbs) await db.drop();
    });
    const freshEnv = async () => {
      const db = await createTestDatabase(dialect);
      dbs.push(db);
      return { DATABASE_URL: db.url, DATA_DIR: db.dataDir, AUTH_CACHE_MS: '0' };
    };

    test('account create, token create and revoke print JSON; the token works until revoked', async () => {
      const env = await freshEnv();
      assert.deepEqual((await cli(['migrate'], env)).applied, MIGRATIONS.map((m) => m.name));
      assert.deepEqual((await cli(['migrate'], env)).applied, [], 'a second migrate has nothing to do');
      const account = await cli(['account', 'create', '--name', 'Acme', '--plan', 'free'], env);
      assert.equal(account.name, 'Acme');
      assert.equal(account.plan, 'free');
      assert.equal(account.hourly_limit, 1000);
      assert.equal(account.concurrency, 3);
      const custom = await cli(['account', 'create', '--name', 'Big', '--plan', 'enterprise', '--hourly-limit', '50000', '--concurrency', '40'], env);
      assert.equal(custom.hourly_limit, 50000);
      assert.equal(custom.concurrency, 40);
      const listed = await cli(['account', 'list'], env);
      assert.deepEqual(listed.map((a: { id: string }) => a.id), [account.id, custom.id]);
      assert.equal(listed[1].hourly_limit, 50000);
      const token = await cli(['token', 'create', '--account', account.id], env);
      assert.match(token.access_token, /^prl_[A-Za-z0-9]{40}$/);

      const server = await startServerProcess({ ...env, BOOTSTRAP_ACCOUNT: 'false' }, await freePort());
      try {
        const api = new ApiClient(server.origin, token.access_token);
        const res = await api.get('/v1/channels');
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-ratelimit-limit'), '1000');
        assert.deepEqual(await cli(['token', 'revoke', '--token', token.access_token], env), { revoked: true });
        assert.equal((await api.get('/v1/channels')).status, 401);
        const again = await cliRaw(['token', 'revoke', '--token', token.access_token], env);
        assert.equal(again.code, 1);
      } finally {
        assert.equal(await server.stop('SIGTERM'), 0, 'SIGTERM stops the server cleanly');
      }
    });

    test('bad arguments and bad configuration stop with a message naming them', async () => {
      const env = await freshEnv();
      const plan = await cliRaw(['account', 'create', '--name', 'x', '--plan', 'gold'], env);
      assert.equal(plan.code, 2);
      assert.match(plan.stderr, /--plan must be one of: free, developer, enterprise/);
      const limit = await cliRaw(['account', 'create', '--name', 'x', '--plan', 'free', '--hourly-limit', '0'], env);
      assert.equal(limit.code, 2);
      const port = await cliRaw(['serve'], { ...env, PORT: 'eighty' });
      assert.equal(port.code, 2);
      assert.match(port.stderr, /PORT/);
      const publicUrl = await cliRaw(['serve'], { ...env, PUBLIC_URL: 'http://example.com/api' });
      assert.equal(publicUrl.code, 2);
      assert.match(publicUrl.stderr, /PUBLIC_URL/);
    });

    test('first start on an empty database makes an account and prints its token once', async () => {
      const env = await freshEnv();
      const first = await startServerProcess(env, await freePort());
      await first.stop();
      const token = /prl_[A-Za-z0-9]{40}/.exec(first.output())?.[0];
      assert.ok(token, first.output());
      const second = await startServerProcess(env, await freePort());
      try {
        assert.ok(!/prl_[A-Za-z0-9]{40}/.test(second.output()), 'the token is printed only on the first start');
        const res = await new ApiClient(second.origin, token).post('/v1/channels', { type: 'service_chat', name: 'Hello' });
        assert.equal(res.status, 201);
      } finally {
        await second.stop();
      }
    });
  });
}
