import { describe, after } from 'node:test';
import { connect } from 'node:net';
import assert from 'node:assert/strict';
import { Agent, request } from 'undici';
import { dialects, createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { accountWithToken, baseEnv, startServerProcess } from './helpers/processes.js';
import { freePort } from './helpers/runtime.js';

/** Opens a new TCP connection (not one a pool holds) to `origin`, and closes it. */
function connectOnce(origin: string): Promise<void> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

/**
 * SHUTDOWN_DRAIN_SECONDS: after SIGTERM a process with an HTTP listener goes on answering for
 * that long, not ready, keeping its connections alive (a proxy uses the ones it holds rather than
 * opening new ones, which the listener's close would reset). Then it stops accepting connections,
 * answers for a second more on the open ones, each answer closing its connection, and closes. A
 * proxy's kept-alive connection is thus ended by an answer, never cut under a request on its way
 * (which a proxy cannot send again when it is a POST). Without it the process closes at once.
 */
for (const { dialect, skip, test } of await dialects()) {
  describe(`Shutdown drain (${dialect})`, { skip }, () => {
    const dbs: TestDatabase[] = [];
    after(async () => {
      for (const db of dbs) await db.drop();
    });

    const start = async (extra: Record<string, string>) => {
      const db = await createTestDatabase(dialect);
      dbs.push(db);
      const env = baseEnv(db, { LOG_LEVEL: 'info', ...extra });
      const { token } = await accountWithToken(env);
      const port = await freePort();
      const server = await startServerProcess(env, port!);
      return { server, token, origin: server.origin };
    };

    test('with a drain: not ready and kept alive, then refusing connections while each answer closes its connection, then exiting on time', async () => {
      const { server, token, origin } = await start({ SHUTDOWN_DRAIN_SECONDS: '2' });
      // One kept-alive connection, as a proxy holds them.
      const agent = new Agent({ connections: 1, pipelining: 1 });
      try {
        const get = (path: string) => request(`${origin}${path}`, { dispatcher: agent, headers: { authorization: `Bearer ${token}` } });
        const before = await get('/v1/channels');
        await before.body.text();
        assert.equal(before.statusCode, 200);
        assert.notEqual(before.headers.connection, 'close', 'kept alive before the signal');

        const signalled = Date.now();
        server.child.kill('SIGTERM');
        await server.waitForLine(/shutting down/);

        const ready = await get('/readyz');
        const readyBody = (await ready.body.json()) as { errors: Array<{ message: string }> };
        assert.equal(ready.statusCode, 503);
        assert.ok(
          readyBody.errors.some((e) => /shutting down/.test(e.message)),
          JSON.stringify(readyBody),
        );
        assert.notEqual(ready.headers.connection, 'close', 'kept alive during the drain');

        // The API still answers during the drain, on the same connection.
        const during = await get('/v1/channels');
        await during.body.text();
        assert.equal(during.statusCode, 200);
        assert.notEqual(during.headers.connection, 'close');
        assert.equal(server.child.exitCode, null, 'still running during the drain');

        // After the drain: new connections are refused, and the open one gets one answer that closes it.
        await server.waitForLine(/stopped accepting connections/);
        await assert.rejects(connectOnce(origin), /ECONNREFUSED/, 'a new connection is refused');
        const last = await get('/v1/channels');
        await last.body.text();
        assert.equal(last.statusCode, 200);
        assert.equal(last.headers.connection, 'close');

        const { code } = await server.exited;
        const took = Date.now() - signalled;
        assert.equal(code, 0, server.output());
        assert.ok(took >= 1_900, `exited after the drain (${took} ms)`);
        assert.ok(took < 15_000, `within the 15 s bound (${took} ms)`);
        await assert.rejects(fetch(`${origin}/healthz`), 'the port is closed after the drain');
      } finally {
        await agent.close();
        await server.kill('SIGKILL');
      }
    });

    test('without a drain (the default) the process closes at once', async () => {
      const { server, origin } = await start({});
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      const { code } = await server.exited;
      assert.equal(code, 0, server.output());
      assert.ok(Date.now() - signalled < 1_900, `closed without waiting (${Date.now() - signalled} ms)`);
      await assert.rejects(fetch(`${origin}/healthz`));
    });
  });
}
