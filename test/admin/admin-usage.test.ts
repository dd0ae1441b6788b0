import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { ADMIN_TEST_ENV, signedIn } from './admin-data-client.js';

for (const { dialect, skip, test } of await dialects()) {
  describe(`administration: plan and usage (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestApp(dialect, { env: ADMIN_TEST_ENV });
    });
    after(async () => s?.close());

    test("the plan's limits and this hour's count: token requests exactly, the app's own reads not", async () => {
      const account = await s.newAccount('free', { hourlyLimit: 500 });
      const app = await signedIn(s, account.accountId, 'owner');
      const first = await app.get('/usage');
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.plan, 'free');
      assert.equal(first.body.hourly_limit, 500);
      assert.equal(first.body.concurrency, 3);
      const now = Date.now();
      const windowStart = Date.parse(first.body.window_start);
      assert.equal(windowStart % 3_600_000, 0);
      assert.ok(windowStart <= now && now < windowStart + 3_600_000);
      assert.equal(first.body.remaining, 500 - first.body.used_this_hour);

      // Bursts, so that on PostgreSQL the instance leases spare positions ahead of the requests:
      // the usage must not count the spares this instance holds.
      let made = 0;
      for (let round = 0; round < 4; round++) {
        const answers = await Promise.all(Array.from({ length: 3 }, () => account.api.get('/v1/channels')));
        for (const a of answers) assert.equal(a.status, 200, a.text);
        made += answers.length;
      }
      const second = await app.get('/usage');
      // The app's own reads take nothing from the quota.
      assert.equal(second.body.used_this_hour, first.body.used_this_hour + made);
      assert.equal(second.body.remaining, 500 - second.body.used_this_hour);
      // The API's own header agrees with what the app shows.
      const next = await account.api.get('/v1/channels');
      assert.equal(Number(next.headers.get('x-ratelimit-remaining')), second.body.remaining - 1);
    });

    test('each account sees its own usage; a member sees it too', async () => {
      const a = await s.newAccount('developer');
      const b = await s.newAccount('developer');
      const member = await signedIn(s, a.accountId, 'member');
      const before = (await member.get('/usage')).body.used_this_hour;
      for (let i = 0; i < 5; i++) await b.api.get('/v1/channels');
      const after = await member.get('/usage');
      assert.equal(after.status, 200);
      assert.equal(after.body.used_this_hour, before, "another account's requests and the app's reads take nothing");
      assert.equal(after.body.hourly_limit, 2000);
    });
  });
}
