import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { eventually } from '../helpers/waits.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ApiClient } from '../helpers/api-client.js';

/** The app's scopes (src/api/scopes.ts): each kind of caller meets its own guard and no other. */
for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['public routes'] })) {
  describe(`HTTP scopes (${dialect})`, { skip }, () => {
    let s: TestServer;
    let release: () => void = () => undefined;
    /** Requests that got past admission into the held route (so hold a slot now). */
    let entered = 0;
    before(async () => {
      s = await startTestServer(dialect, {
        extraRoutes: [
          async (app) => {
            app.get('/v1/test-hold', async () => {
              entered += 1;
              await new Promise<void>((resolve) => {
                const previous = release;
                release = () => {
                  previous();
                  resolve();
                };
              });
              return { ok: true };
            });
          },
        ],
      });
    });
    after(async () => {
      release();
      await s?.close();
    });

    const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));

    test('public routes run none of the token scope: with a token they are neither counted nor held to the concurrency cap', async () => {
      const { api } = await s.newAccount('enterprise', { hourlyLimit: 100, concurrency: 1 });
      const was = entered;
      const held = api.get('/v1/test-hold');
      await eventually(async () => (entered === was + 1 ? true : undefined), 10_000, 'the held request past admission');
      const capped = await api.get('/v1/channels');
      assert.equal(capped.status, 429, 'the only slot is taken');
      const before = remaining(capped);

      const publicCalls: Array<[string, number]> = [
        ['/healthz', 200],
        ['/v1/openapi.json', 200],
        ['/v1/files/aaaaaaaaaaaaaaaaaaaaaaaa/name.txt', 404],
        ['/widget.js', 200],
      ];
      for (const [path, status] of publicCalls) {
        const res = await api.get(path);
        assert.equal(res.status, status, path);
        assert.equal(res.headers.get('x-ratelimit-limit'), null, `${path} is not counted`);
      }
      const inbound = await api.post('/v1/inbound/no_such_platform', '{}');
      assert.equal(inbound.status, 404);
      assert.equal(inbound.headers.get('x-ratelimit-limit'), null);

      release();
      assert.equal((await held).status, 200);
      const after = await api.get('/v1/channels');
      assert.equal(after.status, 200);
      assert.equal(remaining(after), before - 1, 'only token requests took a position in the window');
    });

    test('routes mounted for tests are in the token scope', async () => {
      const anonymous = new ApiClient(s.origin, null);
      const res = await anonymous.get('/v1/test-hold');
      assert.equal(res.status, 401);
      assert.equal(res.body.errors[0].message, 'Missing access token.');
    });

    test('a path under /v1 that no route serves is guarded and counted, and gives its concurrency slot back', async () => {
      const { api } = await s.newAccount('enterprise', { hourlyLimit: 100, concurrency: 1 });
      const first = await api.get('/v1/no-such-thing');
      assert.equal(first.status, 404);
      const second = await api.request('PUT', '/v1/channels');
      assert.equal(second.status, 405, 'the slot of the first request was released');
      assert.equal(remaining(second), remaining(first) - 1);
      assert.equal((await api.get('/v1/channels')).status, 200);
    });

    test('a path outside /v1 that no route serves needs no token', async () => {
      const anonymous = new ApiClient(s.origin, null);
      const res = await anonymous.get('/no-such-page');
      assert.equal(res.status, 404);
      assert.equal(res.body.errors[0].message, 'Resource /no-such-page not found.');
      const wrongMethod = await anonymous.post('/healthz', {});
      assert.equal(wrongMethod.status, 405);
    });
  });
}
