import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { ADMIN_TEST_ENV, signedIn, type AdminClient } from './admin-data-client.js';

for (const { dialect, skip, test } of await dialects()) {
  describe(`administration: access tokens (${dialect})`, { skip }, () => {
    let s: TestServer;
    let owner: AdminClient;
    let member: AdminClient;
    before(async () => {
      s = await startTestApp(dialect, { env: ADMIN_TEST_ENV });
      owner = await signedIn(s, s.accountId, 'owner');
      member = await signedIn(s, s.accountId, 'member');
    });
    after(async () => s?.close());

    test('an owner makes a named token, shown once, that works against the API; the list never shows a token', async () => {
      const made = await owner.post('/tokens', { name: '  CRM integration ' });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.name, 'CRM integration');
      assert.match(made.body.access_token, /^prl_/);
      assert.equal(made.body.prefix, made.body.access_token.slice(0, 10));
      assert.equal(made.body.last_used_at, null);
      assert.ok(!Number.isNaN(Date.parse(made.body.created_at)));

      const api = s.client(made.body.access_token);
      assert.equal((await api.get('/v1/channels')).status, 200);

      const list = await owner.get('/tokens');
      assert.equal(list.status, 200, list.text);
      const listed = list.body.data.find((t: any) => t.id === made.body.id);
      assert.deepEqual(Object.keys(listed).sort(), ['created_at', 'id', 'last_used_at', 'name', 'prefix']);
      assert.equal(listed.name, 'CRM integration');
      // Its use was recorded (AUTH_CACHE_MS is 0 in tests, so the lookup wrote it).
      assert.ok(listed.last_used_at !== null);
      assert.ok(!list.text.includes(made.body.access_token));
      // The token made for the test server has no name: it is called by its prefix.
      const first = list.body.data.find((t: any) => t.id !== made.body.id);
      assert.match(first.name, /^token prl_/);
    });

    test('a revoked token stops working at once and leaves the list; revoking it again is 404', async () => {
      const made = await owner.post('/tokens', { name: 'short-lived' });
      const api = s.client(made.body.access_token);
      assert.equal((await api.get('/v1/channels')).status, 200);
      const revoked = await owner.delete(`/tokens/${made.body.id}`);
      assert.equal(revoked.status, 204, revoked.text);
      assert.equal((await api.get('/v1/channels')).status, 401);
      const ids = (await owner.get('/tokens')).body.data.map((t: any) => t.id);
      assert.ok(!ids.includes(made.body.id));
      assert.equal((await owner.delete(`/tokens/${made.body.id}`)).status, 404);
      assert.equal((await owner.delete('/tokens/abc')).status, 404);
    });

    test('a member lists tokens but cannot make or revoke one (403)', async () => {
      const listed = await member.get('/tokens');
      assert.equal(listed.status, 200, listed.text);
      const create = await member.post('/tokens', { name: 'mine' });
      assert.equal(create.status, 403, create.text);
      assert.equal(create.body.errors[0].message, 'Only an owner can manage tokens.');
      const target = listed.body.data[0].id;
      const revoke = await member.delete(`/tokens/${target}`);
      assert.equal(revoke.status, 403, revoke.text);
      assert.ok((await owner.get('/tokens')).body.data.some((t: any) => t.id === target));
    });

    test('names are checked: missing, empty, blank and too long are 422 naming `name`', async () => {
      for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 5 }]) {
        const res = await owner.post('/tokens', body);
        assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
        assert.equal(res.body.errors[0].field, 'name');
      }
      assert.equal((await owner.post('/tokens', { name: 'x'.repeat(100) })).status, 201);
    });

    test("another account's tokens are neither listed nor revocable", async () => {
      const other = await s.newAccount();
      const otherOwner = await signedIn(s, other.accountId, 'owner');
      const theirs = await otherOwner.post('/tokens', { name: 'theirs' });
      assert.equal(theirs.status, 201);
      assert.ok(!(await owner.get('/tokens')).body.data.some((t: any) => t.id === theirs.body.id));
      assert.equal((await owner.delete(`/tokens/${theirs.body.id}`)).status, 404);
      assert.equal((await s.client(theirs.body.access_token).get('/v1/channels')).status, 200);
    });

    test('without a session the routes answer 401, and a change without the CSRF token 403', async () => {
      const res = await s.client(null).get('/admin/api/tokens');
      assert.equal(res.status, 401);
      const noCsrf = await owner.request('POST', '/tokens', { name: 'x' }, { 'x-csrf-token': 'wrong' });
      assert.equal(noCsrf.status, 403);
    });
  });
}
