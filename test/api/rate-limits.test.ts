import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { eventually } from '../helpers/waits.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ManualClock } from '../../src/lib/clock.js';
import { QUOTA_MESSAGE } from '../../src/api/token-guard.js';

for (const { dialect, skip } of await dialects()) {
  describe(`Rate limits (${dialect})`, { skip }, () => {
    let s: TestServer;
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 10, 15, 0));
    let release: () => void = () => undefined;
    /** Requests that got past admission into the held route (so hold a slot now). */
    let entered = 0;
    before(async () => {
      s = await startTestServer(dialect, {
        clock,
        extraRoutes: [
          async (app) => {
            app.get('/v1/test-slow', async () => {
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

    test('plans set the hourly limit header: free 1000, developer 2000', async () => {
      const free = await s.newAccount('free');
      const dev = await s.newAccount('developer');
      assert.equal((await free.api.get('/v1/channels')).headers.get('x-ratelimit-limit'), '1000');
      assert.equal((await dev.api.get('/v1/channels')).headers.get('x-ratelimit-limit'), '2000');
    });

    test('the quota: exactly the limit passes, then 429 for every request until the reset', async () => {
      const { api } = await s.newAccount('enterprise', { hourlyLimit: 3 });
      const windowEnd = Math.ceil((Math.floor(clock.now() / 3_600_000) + 1) * 3600);
      for (const remaining of [2, 1, 0]) {
        const res = await api.get('/v1/channels');
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-ratelimit-limit'), '3');
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(remaining));
        assert.equal(res.headers.get('x-ratelimit-reset'), String(windowEnd));
      }
      for (let i = 0; i < 3; i++) {
        const res = await api.get(i === 1 ? '/v1/no-such-route' : '/v1/channels');
        assert.equal(res.status, 429);
        assert.equal(res.body.status.code, '429');
        assert.equal(res.body.errors[0].message, QUOTA_MESSAGE);
        assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
      }
      clock.set(windowEnd * 1000);
      const after = await api.get('/v1/channels');
      assert.equal(after.status, 200);
      assert.equal(after.headers.get('x-ratelimit-remaining'), '2');
    });

    test('accounts have separate quotas', async () => {
      const a = await s.newAccount('enterprise', { hourlyLimit: 1 });
      const b = await s.newAccount('enterprise', { hourlyLimit: 1 });
      assert.equal((await a.api.get('/v1/channels')).status, 200);
      assert.equal((await a.api.get('/v1/channels')).status, 429);
      assert.equal((await b.api.get('/v1/channels')).status, 200);
    });

    test('simultaneous requests above the cap get 429; the slot frees when a request ends', async () => {
      const { api } = await s.newAccount('enterprise', { concurrency: 2 });
      const was = entered;
      const slow = [api.get('/v1/test-slow'), api.get('/v1/test-slow')];
      await eventually(async () => (entered === was + 2 ? true : undefined), 10_000, 'both slow requests held');
      const third = await api.get('/v1/channels');
      assert.equal(third.status, 429);
      assert.match(third.body.errors[0].message, /simultaneous/);
      release();
      const done = await Promise.all(slow);
      assert.deepEqual(
        done.map((r) => r.status),
        [200, 200],
      );
      assert.equal((await api.get('/v1/channels')).status, 200);
    });
  });
}
