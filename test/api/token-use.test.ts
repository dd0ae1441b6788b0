import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { OffsetClock } from '../connectors/helpers/harness.js';

for (const { dialect, skip } of await dialects()) {
  describe(`Access token last use (${dialect})`, { skip }, () => {
    const clock = new OffsetClock();
    let s: TestServer;
    before(async () => {
      // Lookups are cached for an hour (of the test's clock): later requests are cache hits.
      s = await startTestApp(dialect, { clock, env: { AUTH_CACHE_MS: '3600000' } });
    });
    after(async () => s?.close());

    const lastUsed = async () => (await s.runtime.store.tokens.listForAccount(s.accountId))[0]!.last_used_at;

    /** The recorded last use once it differs from `previous` (written after the answer, so polled; bounded). */
    async function lastUsedOtherThan(previous: number | null): Promise<number> {
      for (let i = 0; i < 200; i++) {
        const value = await lastUsed();
        if (value !== null && value !== previous) return value;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error('the last use was not recorded');
    }

    test("a token's last use is written at most once a minute, also from the authentication cache", async () => {
      assert.equal(await lastUsed(), null);
      assert.equal((await s.api.get('/v1/channels')).status, 200);
      const first = await lastUsedOtherThan(null);

      // Half a minute later: not written again. Were it written, the next request (less than a
      // minute after it) would not be, and the last use would stay about 30 s after the first.
      clock.advance(30_000);
      assert.equal((await s.api.get('/v1/channels')).status, 200);
      clock.advance(40_000);
      assert.equal((await s.api.get('/v1/channels')).status, 200);
      const third = await lastUsedOtherThan(first);
      assert.ok(third - first >= 70_000, `written at the third request (${third - first} ms after the first)`);
    });
  });
}
