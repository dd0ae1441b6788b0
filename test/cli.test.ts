import { describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dialects, createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { cli, cliRaw, startServerProcess } from './helpers/processes.js';
import { freePort } from './helpers/runtime.js';
import { ApiClient } from './helpers/api-client.js';
import { MIGRATIONS } from '../src/store/migrations/index.js';
import { openStore } from '../src/store/open.js';

for (const { dialect, skip, test } of await dialects({
  // Argument and configuration errors stop before the store is opened: SQLite alone covers them.
  postgresSmoke: ['account create, token create and revoke', 'token list, account update and delete', 'first start on an empty database'],
})) {
  describe(`CLI and first start (${dialect})`, { skip }, () => {
    const dbs: TestDatabase[] = [];
    after(async () => {
      for (const db of dbs) await db.drop();
    });
    const freshEnv = async () => {
      // Empty, not from the migrated template: these tests watch the migrations run.
      const db = await createTestDatabase(dialect, { migrated: false });
      dbs.push(db);
      return { DATABASE_URL: db.url, DATA_DIR: db.dataDir, AUTH_CACHE_MS: '0' };
    };

    test('account create, token create and revoke print JSON; the token works until revoked', async () => {
      const env = await freshEnv();
      assert.deepEqual(
        (await cli(['migrate'], env)).applied,
        MIGRATIONS.map((m) => m.name),
      );
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
      assert.deepEqual(
        listed.map((a: { id: string }) => a.id),
        [account.id, custom.id],
      );
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

    test('token list, account update and delete; revoking an unknown token fails with a message', async () => {
      const env = await freshEnv();
      const acme = await cli(['account', 'create', '--name', 'Acme', '--plan', 'free'], env);
      const used = await cli(['token', 'create', '--account', acme.id], env);
      const idle = await cli(['token', 'create', '--account', acme.id], env);
      const server = await startServerProcess({ ...env, BOOTSTRAP_ACCOUNT: 'false' }, await freePort());
      try {
        const api = new ApiClient(server.origin, used.access_token);
        const channel = await api.post('/v1/channels', {
          type: 'mobile',
          name: 'SMS',
          mode: 'test',
          provider: { type: 'smsprovider', sender_id: 'Acme', access_token: 'key', signing_key: 'sign' },
        });
        assert.equal(channel.status, 201, channel.text);
        const sent = await api.post('/v1/messages', {
          channel: { id: channel.body.id },
          contact: { phone_number: '+420601000001' },
          content: { type: 'text', payload: 'hi' },
        });
        assert.equal(sent.status, 201, sent.text);

        // Listed without the token itself: its first characters, creation and last use.
        let listed: any[] = [];
        for (let i = 0; i < 10; i++) {
          listed = await cli(['token', 'list', '--account', acme.id], env);
          if (listed.find((t) => t.id === used.id)?.last_used !== null) break;
        }
        assert.deepEqual(listed.map((t) => t.id).sort(), [used.id, idle.id].sort());
        assert.ok(!JSON.stringify(listed).includes(used.access_token) && !JSON.stringify(listed).includes(idle.access_token), 'no token text');
        const usedRow = listed.find((t) => t.id === used.id);
        const idleRow = listed.find((t) => t.id === idle.id);
        assert.equal(usedRow.prefix, used.access_token.slice(0, 10));
        assert.equal(used.prefix, usedRow.prefix);
        assert.match(usedRow.created, /^\d{4}-\d\d-\d\dT/);
        assert.match(usedRow.last_used, /^\d{4}-\d\d-\d\dT/);
        assert.deepEqual([idleRow.last_used, idleRow.revoked], [null, null]);

        // Limits change, and "default" goes back to the plan's value; the server sees it.
        assert.deepEqual(await cli(['account', 'update', '--account', acme.id, '--hourly-limit', '5000', '--concurrency', '7'], env), {
          id: acme.id,
          name: 'Acme',
          plan: 'free',
          hourly_limit: 5000,
          concurrency: 7,
        });
        assert.equal((await api.get('/v1/channels')).headers.get('x-ratelimit-limit'), '5000');
        assert.deepEqual(await cli(['account', 'update', '--account', acme.id, '--plan', 'developer', '--hourly-limit', 'default'], env), {
          id: acme.id,
          name: 'Acme',
          plan: 'developer',
          hourly_limit: 2000,
          concurrency: 7,
        });
        const unknownAccount = await cliRaw(['account', 'update', '--account', '424242', '--plan', 'free'], env);
        assert.equal(unknownAccount.code, 1);
        assert.match(unknownAccount.stderr, /no account 424242/);

        // Revoking an unknown token, and one twice.
        const unknownId = await cliRaw(['token', 'revoke', '--id', '424242'], env);
        assert.equal(unknownId.code, 1);
        assert.match(unknownId.stderr, /no such token: token 424242 does not exist/);
        assert.deepEqual(await cli(['token', 'revoke', '--id', idle.id], env), { revoked: true });
        const twice = await cliRaw(['token', 'revoke', '--id', idle.id], env);
        assert.equal(twice.code, 1);
        assert.match(twice.stderr, /revoked already/);

        // A stored file of the contact: its row, and its bytes in the data folder.
        const bytes = join(env.DATA_DIR, 'files', 'zz', 'zz-cli-file');
        mkdirSync(dirname(bytes), { recursive: true });
        writeFileSync(bytes, 'bytes');
        const store = await openStore(env.DATABASE_URL);
        try {
          await store.files.insert({
            id: 'zzclifile',
            account_id: Number(acme.id),
            channel_id: Number(channel.body.id),
            contact_id: Number(sent.body.contact.id),
            name: 'a.txt',
            mime_type: 'text/plain',
            size: 5,
            storage_key: 'zz/zz-cli-file',
            created_at: 1,
          });
        } finally {
          await store.close();
        }

        // Delete asks for --yes, showing what would go; nothing changes without it.
        const asked = await cliRaw(['account', 'delete', '--account', acme.id], env);
        assert.equal(asked.code, 1);
        assert.match(asked.stderr, /add --yes/);
        assert.deepEqual(JSON.parse(asked.stdout).would_delete, { channels: 1, contacts: 1, messages: 1, files: 1, tokens: 1 });
        assert.equal((await api.get('/v1/channels')).status, 200);
        assert.ok(existsSync(bytes));
        const deleted = await cli(['account', 'delete', '--account', acme.id, '--yes'], env);
        assert.deepEqual(deleted.deleted, { channels: 1, contacts: 1, messages: 1, files: 1, tokens: 1 });
        assert.equal(existsSync(bytes), false, 'the stored bytes went too');
        assert.equal((await api.get('/v1/channels')).status, 401, 'its tokens went with it');
      } finally {
        await server.stop();
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
