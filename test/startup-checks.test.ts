import { describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dialects, createTestDatabase, type TestDatabase, type Dialect } from './helpers/databases.js';
import { cli, cliRaw, spawnServer, startServerProcess } from './helpers/processes.js';
import { freePort } from './helpers/runtime.js';
import { loadConfig, newEncryptionKey } from '../src/config.js';
import { createRuntime } from '../src/runtime.js';
import { openStore } from '../src/store/open.js';
import { KEY_CHECK } from '../src/startup/encryption-check.js';
import { FILES_MARKER } from '../src/startup/files-marker.js';

/**
 * `parley serve` refuses a configuration that would run wrong (a taken address, a missing
 * PUBLIC_URL where the default names the wrong address, a key that cannot read the stored
 * secrets, a files folder the other instances do not see): exit code 2, a message naming the
 * setting, and nothing created: no first account, no token printed.
 */
const TOKEN = /prl_[A-Za-z0-9]{40}/;

function occupy(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

async function serviceMeta(url: string, name: string): Promise<string | null> {
  const store = await openStore(url);
  try {
    return await store.serviceMeta.find(name);
  } finally {
    await store.close();
  }
}

for (const { dialect, skip, test } of await dialects()) {
  describe(`Start-up checks (${dialect})`, { skip }, () => {
    const dbs: TestDatabase[] = [];
    const dirs: string[] = [];
    after(async () => {
      for (const db of dbs) await db.drop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });
    const tempDir = () => {
      const dir = mkdtempSync(join(tmpdir(), 'parley-start-'));
      dirs.push(dir);
      return dir;
    };
    /** A database with no account yet: a start that got as far as the first account would make one. */
    const freshEnv = async (d: Dialect, extra: Record<string, string> = {}) => {
      const db = await createTestDatabase(d);
      dbs.push(db);
      const env: Record<string, string> = { DATABASE_URL: db.url, DATA_DIR: db.dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...extra };
      if (d === 'postgres') env.PUBLIC_URL = 'http://127.0.0.1:1/v1';
      return env;
    };
    /** The refusal's promises: exit code 2, the message, no token printed, no account made. */
    const assertRefused = async (run: { code: number; stdout: string; stderr: string }, message: RegExp, env: Record<string, string>) => {
      assert.equal(run.code, 2, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stderr, message);
      assert.doesNotMatch(run.stdout + run.stderr, TOKEN, 'no token is printed');
      assert.doesNotMatch(run.stdout, /created a first account/);
      assert.deepEqual(await cli(['account', 'list'], env), [], 'no account was made');
    };

    test('a port already taken: exit 2 naming PORT and HOST, no first account, no token', async () => {
      const port = await freePort();
      const env = await freshEnv(dialect, { PORT: String(port) });
      const taken = await occupy(port);
      try {
        const run = await cliRaw(['serve'], env);
        await assertRefused(run, new RegExp(`cannot listen on PORT=${port} HOST=127\\.0\\.0\\.1: the address is already in use`), env);
        assert.equal(await serviceMeta(env.DATABASE_URL!, KEY_CHECK), null, 'no check value recorded');
        assert.equal(await serviceMeta(env.DATABASE_URL!, FILES_MARKER), null, 'no files marker recorded');
      } finally {
        await new Promise((resolve) => taken.close(resolve));
      }
      // The same start on a free port makes the first account and prints its token.
      const server = await startServerProcess({ ...env, PUBLIC_URL: `http://127.0.0.1:${port}/v1` }, port);
      await server.stop();
      assert.match(server.output(), TOKEN);
      assert.equal((await cli(['account', 'list'], env)).length, 1);
    });

    test('a key that cannot read the stored secrets: exit 2 naming ENCRYPTION_KEY, nothing created; the right key starts', async () => {
      const right = newEncryptionKey();
      const env = await freshEnv(dialect, { ENCRYPTION_KEY: right, BOOTSTRAP_ACCOUNT: 'false' });
      // The first start records the check value with its key.
      const first = await startServerProcess(env, await freePort());
      assert.equal(await first.stop(), 0);
      assert.ok(await serviceMeta(env.DATABASE_URL!, KEY_CHECK));

      const port = await freePort();
      const wrong = await cliRaw(['serve'], { ...env, ENCRYPTION_KEY: newEncryptionKey(), BOOTSTRAP_ACCOUNT: 'true', PORT: String(port) });
      await assertRefused(wrong, /ENCRYPTION_KEY cannot read the secrets stored in this database: it is not the key they were encrypted with\. /, env);
      assert.doesNotMatch(wrong.stderr, /was read from/, 'the key was set, not read from a file');

      // Without ENCRYPTION_KEY the key comes from the data folder's file, and the message names it.
      const otherData = tempDir();
      const { ENCRYPTION_KEY: _set, ...unset } = env;
      const fromFile = await cliRaw(['serve'], { ...unset, DATA_DIR: otherData, FILES_DIR: join(env.DATA_DIR!, 'files'), BOOTSTRAP_ACCOUNT: 'true' });
      await assertRefused(fromFile, new RegExp(`ENCRYPTION_KEY is not set, so the key was read from ${join(otherData, 'encryption.key')}`), env);

      const again = await startServerProcess({ ...env, BOOTSTRAP_ACCOUNT: 'true' }, port);
      await again.stop();
      assert.match(again.output(), TOKEN, 'with its own key the same start makes the first account');
    });

    test(
      'two first starts at once with different keys: one starts, the other is refused',
      { skip: dialect === 'sqlite' && 'one process per SQLite database' },
      async () => {
        const env = await freshEnv(dialect, { BOOTSTRAP_ACCOUNT: 'false', LOG_LEVEL: 'info' });
        const servers = [newEncryptionKey(), newEncryptionKey()].map(async (key) => {
          const server = spawnServer({ ...(process.env as Record<string, string>), ...env, ENCRYPTION_KEY: key, PORT: String(await freePort()) });
          const started = await server.waitForLine(/parley started/).then(
            () => true,
            () => false,
          );
          return { server, started };
        });
        const outcomes = await Promise.all(servers);
        try {
          assert.deepEqual(outcomes.map((o) => o.started).sort(), [false, true], outcomes.map((o) => o.server.output()).join('\n'));
          const refused = outcomes.find((o) => !o.started)!.server;
          assert.equal((await refused.exited).code, 2);
          assert.match(refused.output(), /ENCRYPTION_KEY cannot read the secrets stored in this database/);
        } finally {
          for (const { server } of outcomes) await server.stop();
        }
      },
    );

    test('parley key prints a new key ENCRYPTION_KEY accepts, and needs no configuration', async () => {
      const dir = join(tempDir(), 'data');
      const made = await Promise.all([cliRaw(['key'], { DATA_DIR: dir }), cliRaw(['key'], { DATA_DIR: dir })]);
      for (const run of made) {
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, /^[A-Za-z0-9+/]{43}=\n$/);
        assert.equal(Buffer.from(run.stdout.trim(), 'base64').length, 32);
        assert.equal(loadConfig({ ENCRYPTION_KEY: run.stdout.trim(), DATA_DIR: dir }).encryptionKey, run.stdout.trim());
      }
      assert.notEqual(made[0]!.stdout, made[1]!.stdout);
      assert.equal(existsSync(join(dir, 'encryption.key')), false, 'no key file was made');
    });

    test('an installation from before the key check: a key that reads its secrets starts and records the check, another is refused', async () => {
      const right = newEncryptionKey();
      const env = await freshEnv(dialect, { ENCRYPTION_KEY: right, BOOTSTRAP_ACCOUNT: 'false', WEBHOOK_ALLOWLIST: '127.0.0.1' });
      // A channel with a webhook secret, stored as an older version did: no check value recorded.
      const runtime = await createRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
      try {
        const account = await runtime.services.accounts.createAccount({ name: 'older', plan: 'free' });
        await runtime.services.channels.create(account.id, { type: 'service_chat', name: 'hooked', webhook: { url: 'http://127.0.0.1:9/hook' } });
      } finally {
        await runtime.close();
      }
      assert.equal(await serviceMeta(env.DATABASE_URL!, KEY_CHECK), null);

      const wrong = await cliRaw(['serve'], { ...env, ENCRYPTION_KEY: newEncryptionKey(), PORT: String(await freePort()) });
      assert.equal(wrong.code, 2, wrong.stderr);
      assert.match(wrong.stderr, /ENCRYPTION_KEY cannot read the secrets stored in this database/);
      assert.equal(await serviceMeta(env.DATABASE_URL!, KEY_CHECK), null, 'the refused key recorded nothing');
      assert.equal((await cli(['account', 'list'], env)).length, 1);

      const upgraded = await startServerProcess(env, await freePort());
      assert.equal(await upgraded.stop(), 0);
      assert.ok(await serviceMeta(env.DATABASE_URL!, KEY_CHECK), 'the upgrade recorded the check value');
      const later = await cliRaw(['serve'], { ...env, ENCRYPTION_KEY: newEncryptionKey(), PORT: String(await freePort()) });
      assert.equal(later.code, 2);
      assert.match(later.stderr, /ENCRYPTION_KEY cannot read/);
    });

    test('a FILES_DIR without the first instance’s marker: exit 2 naming FILES_DIR, nothing created; the shared folder starts', async () => {
      const shared = tempDir();
      const env = await freshEnv(dialect, { FILES_DIR: shared, BOOTSTRAP_ACCOUNT: 'false' });
      const first = await startServerProcess(env, await freePort());
      assert.equal(await first.stop(), 0);
      const id = await serviceMeta(env.DATABASE_URL!, FILES_MARKER);
      assert.ok(id);
      assert.deepEqual(readdirSync(shared), [`.parley-files-${id}`]);

      const own = tempDir();
      const port = await freePort();
      const run = await cliRaw(['serve'], { ...env, FILES_DIR: own, BOOTSTRAP_ACCOUNT: 'true', PORT: String(port) });
      await assertRefused(
        run,
        new RegExp(`FILES_DIR \\(${own}\\) is not the folder of the stored files of this database: the marker file \\.parley-files-${id}`),
        env,
      );
      assert.deepEqual(readdirSync(own), [], 'the refused instance wrote nothing in its folder');
      const missing = join(tempDir(), 'not-made');
      const none = await cliRaw(['serve'], { ...env, FILES_DIR: missing, PORT: String(port) });
      assert.equal(none.code, 2);
      assert.match(none.stderr, /FILES_DIR/);
      assert.equal(existsSync(missing), false);

      const again = await startServerProcess({ ...env, BOOTSTRAP_ACCOUNT: 'true' }, port);
      await again.stop();
      assert.match(again.output(), TOKEN, 'on the shared folder the same start makes the first account');
      assert.equal(await serviceMeta(env.DATABASE_URL!, FILES_MARKER), id, 'the marker stays the first one');
    });

    test('a FILES_DIR that cannot be written: exit 2 naming FILES_DIR, nothing created', async () => {
      const blocker = join(tempDir(), 'a-file');
      writeFileSync(blocker, 'not a folder');
      const env = await freshEnv(dialect, { FILES_DIR: join(blocker, 'files'), PORT: String(await freePort()) });
      const run = await cliRaw(['serve'], env);
      await assertRefused(run, new RegExp(`FILES_DIR \\(${join(blocker, 'files')}\\) cannot be written`), env);
      assert.equal(await serviceMeta(env.DATABASE_URL!, FILES_MARKER), null);
    });

    test('PUBLIC_URL unset: a worker is refused on either store, any role on PostgreSQL; one process on SQLite keeps its default', async () => {
      const env = await freshEnv(dialect, { LOG_LEVEL: 'info' });
      delete env.PUBLIC_URL;
      const worker = await cliRaw(['serve'], { ...env, ROLE: 'worker' });
      await assertRefused(worker, /PUBLIC_URL is not set; a worker \(ROLE=worker\) listens on no port/, env);
      if (dialect === 'postgres') {
        for (const role of ['api', 'all']) {
          const run = await cliRaw(['serve'], { ...env, ROLE: role, PORT: String(await freePort()) });
          await assertRefused(run, /PUBLIC_URL is not set; on PostgreSQL several instances serve one address/, env);
        }
        // With it set, a worker starts.
        const started = spawnServer({ ...(process.env as Record<string, string>), ...env, ROLE: 'worker', PUBLIC_URL: 'https://parley.example.com/v1' });
        try {
          await started.waitForLine(/parley started/);
        } finally {
          assert.equal(await started.stop(), 0);
        }
      } else {
        const port = await freePort();
        const single = spawnServer({ ...(process.env as Record<string, string>), ...env, PORT: String(port) });
        try {
          await single.waitForLine(/parley started/);
          assert.match(single.output(), new RegExp(`curl -H "Authorization: Bearer prl_[A-Za-z0-9]{40}" http://localhost:${port}/v1/channels`));
        } finally {
          assert.equal(await single.stop(), 0);
        }
      }
    });

    test(
      'several processes starting at once on an empty database make one first account and print its token once',
      { skip: dialect === 'sqlite' ? 'one process serves a SQLite store' : false },
      async () => {
        const env = await freshEnv(dialect, { BOOTSTRAP_ACCOUNT: 'true' });
        const ports = [await freePort(), await freePort(), await freePort()];
        // Started together, each one reaches the first-account check at about the same moment.
        const started = await Promise.allSettled(ports.map((port) => startServerProcess({ ...env, PUBLIC_URL: 'http://127.0.0.1:1/v1' }, port)));
        const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
        const refused = started.find((s) => s.status === 'rejected');
        if (refused) {
          // The ones that started are stopped, or they would outlive the test and hold its process.
          for (const server of servers) await server.stop('SIGKILL');
          throw refused.reason;
        }
        for (const server of servers) assert.equal(await server.stop(), 0);
        const tokens = servers.flatMap((server) => server.output().match(new RegExp(TOKEN.source, 'g')) ?? []);
        assert.equal(new Set(tokens).size, 1, servers.map((server) => server.output()).join('\n---\n'));
        assert.equal(servers.filter((server) => /created a first account/.test(server.output())).length, 1);
        assert.equal((await cli(['account', 'list'], env)).length, 1);
      },
    );
  });
}
