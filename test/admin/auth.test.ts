import { after, before, describe, test as plainTest } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ManualClock } from '../../src/lib/clock.js';
import { connect } from 'node:net';
import { once } from 'node:events';
import { AdminClient } from './auth-client.js';
import { HASHING_CONCURRENCY, HASHING_QUEUE } from '../../src/domain/users/hashing.js';
import { eventually } from '../helpers/waits.js';

const PASSWORD = 'correct horse battery';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

/** A stand-in for `npm run build`'s output: an index page, a hashed asset, a top-level file. */
function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-admin-app-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><title>Parley administration</title><script type="module" src="/admin/assets/app-3f2a9c.js"></script>',
  );
  writeFileSync(join(dir, 'assets', 'app-3f2a9c.js'), 'console.log("app");');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

function assertSecurityHeaders(headers: Headers, what: string): void {
  assert.equal(headers.get('content-security-policy'), CSP, what);
  assert.equal(headers.get('x-frame-options'), 'DENY', what);
  assert.equal(headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(headers.get('referrer-policy'), 'same-origin', what);
}

function assertErrorBody(body: any, status: number, message: string | RegExp, field?: string): void {
  assert.equal(body?.status?.code, String(status), JSON.stringify(body));
  const first = body.errors[0];
  if (typeof message === 'string') assert.equal(first.message, message);
  else assert.match(first.message, message);
  if (field !== undefined) assert.equal(first.field, field);
}

for (const { dialect, skip, test } of await dialects()) {
  describe(`administration sign-in and the admin scope (${dialect})`, { skip }, () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 9, 0, 0));
    const appDir = fakeBuild();
    let server: TestServer;
    let addresses = 0;
    /** Each test signs in from its own address, so the address throttle of one does not reach another. */
    const browser = () => new AdminClient(server.origin, `198.51.100.${++addresses}`);
    const addUser = async (email: string, role: 'owner' | 'member' = 'owner', accountId = server.accountId) => {
      const made = await server.runtime.services.users.createUser({ accountId, email, role, password: PASSWORD });
      return made.user;
    };
    /** A user whose password is their own (no change required), signed in. */
    const signedIn = async (email: string, role: 'owner' | 'member' = 'owner', accountId = server.accountId) => {
      const user = await addUser(email, role, accountId);
      const row = await server.runtime.store.adminUsers.find(user.id);
      await server.runtime.store.adminUsers.setPassword(user.id, row!.password_hash, false);
      const client = browser();
      const res = await client.signIn(email, PASSWORD);
      assert.equal(res.status, 200, res.text);
      return { client, user };
    };

    before(async () => {
      server = await startTestServer(dialect, { clock, adminAppDir: appDir, env: { ADMIN_PASSWORD_COST: '10', TRUSTED_PROXIES: 'loopback' } });
    });
    after(async () => {
      await server?.close();
      rmSync(appDir, { recursive: true, force: true });
    });

    test('sign-in answers the user, the account and a CSRF token, and sets a strict session cookie', async () => {
      await addUser('Owner@Example.com');
      const client = browser();
      const res = await client.signIn('  owner@EXAMPLE.com ', PASSWORD);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.user.email, 'Owner@Example.com');
      assert.equal(res.body.user.role, 'owner');
      assert.equal(res.body.user.must_change_password, true, 'a password someone else chose must be changed');
      assert.match(res.body.user.id, /^[1-9][0-9]*$/);
      assert.equal(res.body.user.created_at, new Date(clock.now()).toISOString());
      assert.deepEqual(res.body.account, { id: String(server.accountId), name: 'test', plan: 'enterprise' });
      assert.match(res.body.csrf_token, /^[A-Za-z0-9_-]{43}$/);
      const cookie = client.lastSetCookie ?? '';
      assert.match(cookie, /^parley_session=[A-Za-z0-9_-]{43}; /);
      for (const flag of ['HttpOnly', 'SameSite=Strict', 'Path=/admin', 'Max-Age=604800']) assert.ok(cookie.split('; ').includes(flag), `${flag} in ${cookie}`);
      assert.ok(!cookie.includes('Secure'), 'not Secure over plain HTTP');
      assertSecurityHeaders(res.headers, 'sign-in');
      assert.equal(res.headers.get('cache-control'), 'no-store');

      const current = await client.get('/admin/api/session');
      assert.equal(current.status, 200);
      assert.deepEqual(current.body, res.body);
    });

    test('a wrong password and an unknown e-mail get the same 401', async () => {
      await addUser('known@example.com');
      const wrong = await browser().signIn('known@example.com', 'not the password at all');
      const unknown = await browser().signIn('nobody@example.com', PASSWORD);
      for (const res of [wrong, unknown]) {
        assert.equal(res.status, 401);
        assertErrorBody(res.body, 401, 'Wrong email or password.');
        assert.equal(res.headers.get('set-cookie'), null);
      }
      const missing = await browser().post('/admin/api/session', { email: 'known@example.com' });
      assert.equal(missing.status, 422);
      assert.equal(missing.body.errors[0].field, 'password');
    });

    test('hostile bodies on the admin routes get 4xx in the error format, never a password echoed', async () => {
      const { client } = await signedIn('hostile@example.com');
      const secret = 'p'.repeat(5000);
      const cases: Array<[string, string, unknown]> = [
        ['POST', '/admin/api/session', { email: 'hostile@example.com', password: secret }],
        ['POST', '/admin/api/session', { email: 'x'.repeat(5000), password: 'whatever it is' }],
        ['POST', '/admin/api/session', { email: ['a'], password: { $gt: '' } }],
        ['POST', '/admin/api/session', 'not json'],
        ['POST', '/admin/api/setup', { token: 't'.repeat(5000), password: secret }],
        ['POST', '/admin/api/setup', { token: null, password: null }],
        ['POST', '/admin/api/session/password', { current_password: secret, new_password: secret }],
        ['POST', '/admin/api/session/password', { current_password: PASSWORD, new_password: secret }],
        ['POST', '/admin/api/users', { email: 'long@example.com', role: 'member', password: secret }],
        ['POST', '/admin/api/users', { email: 'x@example.com', role: 'member', extra: 1 }],
        ['DELETE', '/admin/api/users/99999999999999999999', undefined],
      ];
      for (const [method, path, body] of cases) {
        const res = await client.request(method, path, body);
        assert.ok(res.status >= 400 && res.status < 500, `${method} ${path} ${String(JSON.stringify(body)).slice(0, 60)}: ${res.status}`);
        assert.equal(res.body?.status?.code, String(res.status), res.text.slice(0, 200));
        assert.ok(!res.text.includes('p'.repeat(100)), `${path} echoed a password`);
      }
      assert.equal((await client.get('/admin/api/session')).status, 200, 'the session survived');
    });

    test('the session cookie is Secure when a trusted proxy says the request came over HTTPS', async () => {
      await addUser('secure@example.com');
      const client = browser();
      const res = await client.post('/admin/api/session', { email: 'secure@example.com', password: PASSWORD }, { 'x-forwarded-proto': 'https' });
      assert.equal(res.status, 200);
      assert.ok((client.lastSetCookie ?? '').split('; ').includes('Secure'), client.lastSetCookie ?? '');
    });

    test('without a session the admin API answers 401, also on paths that do not exist', async () => {
      const client = browser();
      for (const path of ['/admin/api/session', '/admin/api/v1/channels', '/admin/api/users', '/admin/api/no/such/thing', '/admin/api']) {
        const res = await client.get(path);
        assert.equal(res.status, 401, path);
        assertErrorBody(res.body, 401, /^Sign in first/);
        assertSecurityHeaders(res.headers, path);
      }
      const forged = await client.get('/admin/api/v1/channels', { cookie: 'parley_session=bm90LWEtc2Vzc2lvbg' });
      assert.equal(forged.status, 401);
      const token = await client.get('/admin/api/v1/channels', { authorization: `Bearer ${server.token}` });
      assert.equal(token.status, 401, 'an API token is not a session');
    });

    test('with a session, unknown admin paths are 404 and wrong methods 405', async () => {
      const { client } = await signedIn('paths@example.com');
      const missing = await client.get('/admin/api/no/such/thing');
      assert.equal(missing.status, 404);
      assertErrorBody(missing.body, 404, 'Resource /admin/api/no/such/thing not found.');
      const method = await client.request('PUT', '/admin/api/session', {});
      assert.equal(method.status, 405);
      assert.equal(method.headers.get('allow'), 'GET, POST, DELETE');
    });

    test('a change without the CSRF token, or with a wrong one, is refused with 403', async () => {
      const { client } = await signedIn('csrf@example.com');
      const body = { type: 'service_chat', name: 'Site chat' };
      const none = await client.post('/admin/api/v1/channels', body, { 'x-csrf-token': null });
      assert.equal(none.status, 403);
      assertErrorBody(none.body, 403, 'Missing or wrong CSRF token.');
      const wrong = await client.post('/admin/api/v1/channels', body, { 'x-csrf-token': `${client.csrf}x` });
      assert.equal(wrong.status, 403);
      assertErrorBody(wrong.body, 403, 'Missing or wrong CSRF token.');
      const logout = await client.delete('/admin/api/session', { 'x-csrf-token': null });
      assert.equal(logout.status, 403, 'sign-out is a change too');
      assert.equal((await client.get('/admin/api/v1/channels')).body.length, 0, 'nothing was made');

      const made = await client.post('/admin/api/v1/channels', body);
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.name, 'Site chat');
      const listed = await client.get('/admin/api/v1/channels');
      assert.deepEqual(
        listed.body.map((c: { id: string }) => c.id),
        [made.body.id],
      );
    });

    test('a change from another site is refused even with the right CSRF token; sign-in too', async () => {
      const { client } = await signedIn('origin@example.com');
      const body = { type: 'service_chat', name: 'Chat' };
      const crossSite: Array<Record<string, string>> = [{ origin: 'https://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }];
      for (const headers of crossSite) {
        const res = await client.post('/admin/api/v1/channels', body, headers);
        assert.equal(res.status, 403, JSON.stringify(headers));
        assertErrorBody(res.body, 403, 'Cross-site request refused.');
      }
      const same = await client.post('/admin/api/v1/channels', body, { origin: server.origin, 'sec-fetch-site': 'same-origin' });
      assert.equal(same.status, 201, same.text);
      const read = await client.get('/admin/api/v1/channels', { origin: 'https://evil.example' });
      assert.equal(read.status, 200, 'reads are not changes (the cookie is SameSite=Strict)');

      await addUser('login-csrf@example.com');
      const signIn = await browser().post('/admin/api/session', { email: 'login-csrf@example.com', password: PASSWORD }, { origin: 'https://evil.example' });
      assert.equal(signIn.status, 403);
      assert.equal(signIn.headers.get('set-cookie'), null);
    });

    test('a session ends after 12 idle hours, and 7 days after sign-in however busy', async () => {
      const { client } = await signedIn('idle@example.com');
      clock.advance(11 * HOUR);
      assert.equal((await client.get('/admin/api/session')).status, 200, 'used within 12 hours');
      clock.advance(11 * HOUR);
      assert.equal((await client.get('/admin/api/session')).status, 200, 'the last use moved the idle end');
      clock.advance(12 * HOUR);
      assert.equal((await client.get('/admin/api/session')).status, 401, '12 hours idle');

      const busy = (await signedIn('busy@example.com')).client;
      for (let elapsed = 0; elapsed + 11 * HOUR < 7 * 24 * HOUR; elapsed += 11 * HOUR) {
        assert.equal((await busy.get('/admin/api/session')).status, 200, `after ${elapsed / HOUR} hours`);
        clock.advance(11 * HOUR);
      }
      clock.advance(11 * HOUR);
      assert.equal((await busy.get('/admin/api/session')).status, 401, 'past 7 days');
    });

    test('sign-out ends the session and clears the cookie', async () => {
      const { client } = await signedIn('logout@example.com');
      const cookie = client.cookie;
      const res = await client.delete('/admin/api/session');
      assert.equal(res.status, 204);
      assert.match(client.lastSetCookie ?? '', /^parley_session=; .*Max-Age=0/);
      assert.equal(client.cookie, null);
      const reuse = await client.get('/admin/api/session', { cookie: `parley_session=${cookie}` });
      assert.equal(reuse.status, 401, 'the old cookie no longer works');
    });

    test('a password change checks both passwords and ends the other sessions', async () => {
      const { client } = await signedIn('change@example.com');
      const other = browser();
      assert.equal((await other.signIn('change@example.com', PASSWORD)).status, 200);

      const wrong = await client.post('/admin/api/session/password', { current_password: 'not it at all', new_password: 'a brand new secret' });
      assert.equal(wrong.status, 422);
      assert.equal(wrong.body.errors[0].field, 'current_password');
      const short = await client.post('/admin/api/session/password', { current_password: PASSWORD, new_password: 'short' });
      assert.equal(short.status, 422);
      assert.equal(short.body.errors[0].field, 'new_password');
      assert.ok(!short.text.includes(PASSWORD), 'passwords are not echoed');
      const noCsrf = await client.post(
        '/admin/api/session/password',
        { current_password: PASSWORD, new_password: 'a brand new secret' },
        { 'x-csrf-token': null },
      );
      assert.equal(noCsrf.status, 403);

      const ok = await client.post('/admin/api/session/password', { current_password: PASSWORD, new_password: 'a brand new secret' });
      assert.equal(ok.status, 204, ok.text);
      assert.equal((await other.get('/admin/api/session')).status, 401, 'the other session ended');
      const mine = await client.get('/admin/api/session');
      assert.equal(mine.status, 200, 'this session goes on');
      assert.equal(mine.body.user.must_change_password, false);
      assert.equal((await browser().signIn('change@example.com', PASSWORD)).status, 401);
      assert.equal((await browser().signIn('change@example.com', 'a brand new secret')).status, 200);
    });

    test('a setup link sets the password and signs in, once, within 24 hours', async () => {
      const { users } = server.runtime.services;
      const made = await users.createUser({ accountId: server.accountId, email: 'setup@example.com', role: 'member' });
      assert.ok(made.setupLink);
      const link = new URL(made.setupLink);
      assert.equal(link.origin + link.pathname, `${server.origin}/admin/setup`);
      const token = link.searchParams.get('token') ?? '';
      assert.equal((await browser().signIn('setup@example.com', '')).status, 401, 'no password before setup');

      const short = await browser().post('/admin/api/setup', { token, password: 'short' });
      assert.equal(short.status, 422);
      assert.equal(short.body.errors[0].field, 'password');
      const client = browser();
      const res = await client.post('/admin/api/setup', { token, password: PASSWORD });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.user.email, 'setup@example.com');
      assert.equal(res.body.user.must_change_password, false);
      assert.ok(client.cookie);
      assert.equal((await client.get('/admin/api/session')).status, 200);
      const again = await browser().post('/admin/api/setup', { token, password: 'another long password' });
      assert.equal(again.status, 422, 'the link works once');
      assert.equal(again.body.errors[0].field, 'token');
      assert.equal((await browser().signIn('setup@example.com', PASSWORD)).status, 200);

      const late = await users.createUser({ accountId: server.accountId, email: 'late@example.com', role: 'member' });
      clock.advance(24 * HOUR);
      const expired = await browser().post('/admin/api/setup', { token: new URL(late.setupLink!).searchParams.get('token'), password: PASSWORD });
      assert.equal(expired.status, 422, 'expired after 24 hours');
    });

    test('ten failed sign-ins for one e-mail block it for 15 minutes, with Retry-After', async () => {
      await addUser('target@example.com');
      for (let i = 0; i < 10; i++) {
        // From ever new addresses: the e-mail's own count blocks it.
        const res = await browser().signIn('TARGET@example.com', `wrong password ${i}`);
        assert.equal(res.status, 401);
        clock.advance(MINUTE);
      }
      const blocked = await browser().signIn('target@example.com', PASSWORD);
      assert.equal(blocked.status, 429, 'blocked even with the right password');
      assertErrorBody(blocked.body, 429, /^Too many failed sign-ins/);
      // The first failure leaves the 15-minute window 15 - 10 = 5 minutes from now.
      assert.equal(blocked.headers.get('retry-after'), String(5 * 60));
      assert.equal((await signedIn('bystander@example.com')).client.cookie !== null, true, 'other e-mails are not blocked');
      clock.advance(5 * MINUTE);
      assert.equal((await browser().signIn('target@example.com', PASSWORD)).status, 200);
      // Success forgets the e-mail's failures: one more failure does not block again.
      assert.equal((await browser().signIn('target@example.com', 'wrong again entirely')).status, 401);
      assert.equal((await browser().signIn('target@example.com', PASSWORD)).status, 200);
    });

    test('a burst of parallel guesses gets no more tries than the limit', async () => {
      await addUser('burst@example.com');
      const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => browser().signIn('burst@example.com', `parallel guess ${i}`)));
      const statuses = answers.map((a) => a.status);
      assert.ok(
        statuses.every((s) => s === 401 || s === 429),
        statuses.join(),
      );
      // Each try is counted before its password is checked, so at most ten were checked; refused
      // tries are not failures of their own, so exactly the checked ones count.
      const checked = statuses.filter((s) => s === 401).length;
      assert.ok(checked <= 10, `checked passwords: ${statuses.join()}`);
      assert.equal((await browser().signIn('burst@example.com', PASSWORD)).status, checked === 10 ? 429 : 200, statuses.join());
      clock.advance(15 * MINUTE);
    });

    test('thirty failed sign-ins from one address block it for every e-mail', async () => {
      await addUser('victim@example.com');
      const attacker = browser();
      for (let i = 0; i < 30; i++) {
        const res = await attacker.signIn(`guess${i}@example.com`, 'password guess here');
        assert.equal(res.status, 401, `try ${i}`);
      }
      const blocked = await attacker.signIn('victim@example.com', PASSWORD);
      assert.equal(blocked.status, 429);
      assert.equal(blocked.headers.get('retry-after'), String(15 * 60));
      assert.equal((await browser().signIn('victim@example.com', PASSWORD)).status, 200, 'another address signs in');
      clock.advance(15 * MINUTE);
      assert.equal((await attacker.signIn('victim@example.com', PASSWORD)).status, 200, 'the window passed');
    });

    test('only owners manage users; members get 403', async () => {
      const { client: owner, user: me } = await signedIn('boss@example.com', 'owner');
      const { client: member } = await signedIn('staff@example.com', 'member');
      for (const res of [
        await member.get('/admin/api/users'),
        await member.post('/admin/api/users', { email: 'x@example.com', role: 'member', password: PASSWORD }),
        await member.delete(`/admin/api/users/${me.id}`),
      ]) {
        assert.equal(res.status, 403);
        assertErrorBody(res.body, 403, 'Only an owner can manage users.');
      }
      const made = await owner.post('/admin/api/users', { email: 'New@Example.com', role: 'member', password: PASSWORD });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.role, 'member');
      assert.equal(made.body.must_change_password, true);
      assert.equal(made.body.setup_link, undefined);
      const linked = await owner.post('/admin/api/users', { email: 'linked@example.com', role: 'owner' });
      assert.equal(linked.status, 201);
      assert.match(linked.body.setup_link, /\/admin\/setup\?token=[A-Za-z0-9_-]{43}$/);
      const taken = await owner.post('/admin/api/users', { email: 'new@example.com', role: 'member', password: PASSWORD });
      assert.equal(taken.status, 422);
      assert.equal(taken.body.errors[0].field, 'email');
      const weak = await owner.post('/admin/api/users', { email: 'weak@example.com', role: 'member', password: 'short' });
      assert.equal(weak.status, 422);
      assert.equal(weak.body.errors[0].field, 'password');
      const badRole = await owner.post('/admin/api/users', { email: 'role@example.com', role: 'admin', password: PASSWORD });
      assert.equal(badRole.status, 422);
      assert.equal(badRole.body.errors[0].field, 'role');

      const listed = await owner.get('/admin/api/users');
      assert.equal(listed.status, 200);
      const emails = listed.body.data.map((u: { email: string }) => u.email);
      for (const e of ['boss@example.com', 'staff@example.com', 'New@Example.com', 'linked@example.com']) assert.ok(emails.includes(e), e);

      const self = await owner.delete(`/admin/api/users/${me.id}`);
      assert.equal(self.status, 422);
      assertErrorBody(self.body, 422, 'You cannot remove yourself.');
      const gone = await owner.delete(`/admin/api/users/${made.body.id}`);
      assert.equal(gone.status, 204);
      assert.equal((await owner.delete(`/admin/api/users/${made.body.id}`)).status, 404);
      assert.equal((await owner.delete('/admin/api/users/not-an-id')).status, 404);
      assert.equal((await browser().signIn('new@example.com', PASSWORD)).status, 401, 'a removed user cannot sign in');
    });

    test("another account's data never shows through the admin API", async () => {
      const other = await server.newAccount('enterprise');
      const theirs = await other.api.post('/v1/channels', { type: 'service_chat', name: 'Their chat' });
      assert.equal(theirs.status, 201);
      const { user: theirOwner } = await signedIn('their-owner@example.com', 'owner', other.accountId);
      const { client } = await signedIn('our-owner@example.com', 'owner');

      const list = await client.get('/admin/api/v1/channels');
      assert.equal(list.status, 200);
      assert.ok(Array.isArray(list.body) && !list.body.some((c: { id: string }) => c.id === theirs.body.id));
      const one = await client.get(`/admin/api/v1/channels/${theirs.body.id}`);
      assert.equal(one.status, 404);
      const change = await client.request('PATCH', `/admin/api/v1/channels/${theirs.body.id}`, { name: 'Mine now' });
      assert.equal(change.status, 404);
      for (const path of [`/admin/api/v1/channels/${theirs.body.id}/contacts`, `/admin/api/v1/channels/${theirs.body.id}/settings`]) {
        const res = await client.get(path);
        assert.equal(res.status, 404, `${path}: ${res.text}`);
      }
      const users = await client.get('/admin/api/users');
      assert.ok(!users.body.data.some((u: { id: string }) => u.id === String(theirOwner.id)));
      assert.equal((await client.delete(`/admin/api/users/${theirOwner.id}`)).status, 404);
      assert.equal((await other.api.get(`/v1/channels/${theirs.body.id}`)).body.name, 'Their chat');
    });

    test("the app's changes count against the account's hourly quota with the token's; its reads do not", async () => {
      const small = await server.newAccount('free', { hourlyLimit: 4 });
      const { client } = await signedIn('quota@example.com', 'owner', small.accountId);
      const before = Number((await small.api.get('/v1/channels')).headers.get('x-ratelimit-remaining'));
      for (let i = 0; i < 6; i++) {
        const read = await client.get('/admin/api/v1/channels');
        assert.equal(read.status, 200);
        assert.equal(read.headers.get('x-ratelimit-limit'), null);
      }
      const change = await client.post('/admin/api/v1/channels', { type: 'service_chat' });
      assert.equal(change.status, 422, 'counted, then refused by the checks');
      assert.equal(change.headers.get('x-ratelimit-limit'), '4');
      const remaining = Number(change.headers.get('x-ratelimit-remaining'));
      assert.equal(remaining, before - 1, 'six reads took nothing; the change took one');
      const byToken = await small.api.get('/v1/channels');
      assert.equal(Number(byToken.headers.get('x-ratelimit-remaining')), remaining - 1);
      let last = change;
      for (let i = 0; i < remaining; i++) last = await client.post('/admin/api/v1/channels', { type: 'service_chat' });
      assert.equal(last.status, 429);
      assertErrorBody(last.body, 429, /exceeded maximum number of requests/);
      assert.equal((await small.api.get('/v1/channels')).status, 429);
      assert.equal((await client.get('/admin/api/v1/channels')).status, 200, 'the app still shows its pages');
    });

    test('password hashing is bounded: with every turn and the queue taken, sign-in and password change answer 503 at once', async () => {
      const { client } = await signedIn('hash-bound@example.com');
      const work = server.runtime.services.passwordWork;
      const holds: Array<() => void> = [];
      const held: Array<Promise<unknown>> = [];
      while (work.load.active < HASHING_CONCURRENCY || work.load.waiting < HASHING_QUEUE) {
        held.push(work.run(() => new Promise<void>((resolve) => holds.push(resolve))));
        await new Promise((resolve) => setImmediate(resolve));
      }
      try {
        const signIn = await browser().signIn('hash-bound@example.com', PASSWORD);
        assert.equal(signIn.status, 503);
        assertErrorBody(signIn.body, 503, 'The server is busy checking passwords. Try again in a moment.');
        assert.equal(signIn.headers.get('retry-after'), '1');
        const change = await client.post('/admin/api/session/password', { current_password: PASSWORD, new_password: 'a brand new secret' });
        assert.equal(change.status, 503);
        assertErrorBody(change.body, 503, /busy checking passwords/);
        const add = await client.post('/admin/api/users', { email: 'queued@example.com', role: 'member', password: PASSWORD });
        assert.equal(add.status, 503);
        assert.equal(add.headers.get('retry-after'), '1');
      } finally {
        while (holds.length > 0 || work.load.active > 0) {
          holds.shift()?.();
          await new Promise((resolve) => setImmediate(resolve));
        }
        await Promise.all(held);
      }
      assert.equal((await browser().signIn('hash-bound@example.com', PASSWORD)).status, 200, 'free again');
    });

    test('successful sign-ins are throttled too: 30 per e-mail and 60 per address in 15 minutes', async () => {
      await addUser('looper@example.com');
      for (let i = 0; i < 30; i++) {
        // From ever new addresses: the e-mail's own count of successes blocks it.
        assert.equal((await browser().signIn('looper@example.com', PASSWORD)).status, 200, `sign-in ${i}`);
      }
      const blocked = await browser().signIn('looper@example.com', PASSWORD);
      assert.equal(blocked.status, 429);
      assertErrorBody(blocked.body, 429, /^Too many sign-ins\. Try again in \d+ seconds\.$/);
      assert.equal(blocked.headers.get('retry-after'), String(15 * 60));
      clock.advance(15 * MINUTE);
      assert.equal((await browser().signIn('looper@example.com', PASSWORD)).status, 200, 'the window passed');

      const office = browser();
      for (let i = 0; i < 60; i++) {
        const email = `office${i}@example.com`;
        await addUser(email);
        assert.equal((await office.fresh().signIn(email, PASSWORD)).status, 200, email);
      }
      await addUser('office-late@example.com');
      const late = await office.fresh().signIn('office-late@example.com', PASSWORD);
      assert.equal(late.status, 429, 'the address signed in 60 times');
      assert.equal((await browser().signIn('office-late@example.com', PASSWORD)).status, 200, 'another address signs in');
      clock.advance(15 * MINUTE);
    });

    test('the current password on a change is throttled like sign-in: ten wrong ones, then 429 even when right', async () => {
      const { client } = await signedIn('changer@example.com');
      for (let i = 0; i < 10; i++) {
        const wrong = await client.post('/admin/api/session/password', { current_password: `not it ${i} at all`, new_password: 'a brand new secret' });
        assert.equal(wrong.status, 422, `try ${i}`);
        clock.advance(MINUTE);
      }
      const blocked = await client.post('/admin/api/session/password', { current_password: PASSWORD, new_password: 'a brand new secret' });
      assert.equal(blocked.status, 429);
      assertErrorBody(blocked.body, 429, /^Too many password checks/);
      assert.equal(blocked.headers.get('retry-after'), String(5 * 60));
      assert.equal((await browser().signIn('changer@example.com', PASSWORD)).status, 429, "the e-mail's failures are one count");
      clock.advance(5 * MINUTE);
      const ok = await client.post('/admin/api/session/password', { current_password: PASSWORD, new_password: 'a brand new secret' });
      assert.equal(ok.status, 204, ok.text);
      clock.advance(15 * MINUTE);
    });

    test('a user holds at most 10 sessions: the 11th sign-in ends the oldest', async () => {
      await addUser('many-tabs@example.com');
      const clients: AdminClient[] = [];
      for (let i = 0; i < 11; i++) {
        const c = browser();
        assert.equal((await c.signIn('many-tabs@example.com', PASSWORD)).status, 200);
        clients.push(c);
        clock.advance(1000);
      }
      assert.equal((await clients[0]!.get('/admin/api/session')).status, 401, 'the oldest ended');
      for (const c of clients.slice(1)) assert.equal((await c.get('/admin/api/session')).status, 200);
      clock.advance(15 * MINUTE);
    });

    test("an e-mail is unique within an account only: adding another account's user answers as for anyone", async () => {
      const other = await server.newAccount('free');
      await addUser('shared@example.com', 'member', other.accountId);
      const { client: owner } = await signedIn('adder@example.com');
      const added = await owner.post('/admin/api/users', { email: 'Shared@Example.com', role: 'member' });
      assert.equal(added.status, 201, added.text);
      const fresh = await owner.post('/admin/api/users', { email: 'never-seen@example.com', role: 'member' });
      assert.equal(fresh.status, 201);
      assert.deepEqual(Object.keys(added.body).sort(), Object.keys(fresh.body).sort(), 'the same answer as for an unused address');
      const again = await owner.post('/admin/api/users', { email: 'shared@EXAMPLE.com', role: 'member' });
      assert.equal(again.status, 422, 'twice in one account is refused');
      assertErrorBody(again.body, 422, 'A user with this e-mail address exists already in this account.', 'email');
      const listed = await owner.get('/admin/api/users');
      assert.equal(listed.body.data.filter((u: { email: string }) => u.email.toLowerCase() === 'shared@example.com').length, 1, 'only our own user is listed');
    });

    test('one person in several accounts: each password signs in to its own account; one password for several lets the person choose', async () => {
      const first = await server.newAccount('free');
      const second = await server.newAccount('developer');
      const third = await server.newAccount('free');
      const { users } = server.runtime.services;
      const own = async (accountId: number, password: string) => {
        const made = await users.createUser({ accountId, email: 'person@example.com', role: 'owner' });
        await users.setUp(new URL(made.setupLink!).searchParams.get('token')!, password);
      };
      await own(first.accountId, 'the same long password');
      await own(second.accountId, 'the same long password');
      await own(third.accountId, 'a third one of its own');

      const direct = browser();
      const third1 = await direct.signIn('person@example.com', 'a third one of its own');
      assert.equal(third1.status, 200, third1.text);
      assert.equal(third1.body.account.id, String(third.accountId));

      const chooser = browser();
      const choice = await chooser.signIn('person@example.com', 'the same long password');
      assert.equal(choice.status, 200, choice.text);
      assert.deepEqual(choice.body, {
        choose_account: [
          { id: String(first.accountId), name: 'test', plan: 'free' },
          { id: String(second.accountId), name: 'test', plan: 'developer' },
        ],
      });
      assert.equal(chooser.cookie, null, 'no session before the choice');
      assert.equal(choice.headers.get('set-cookie'), null);

      const picked = await chooser.post('/admin/api/session', {
        email: 'person@example.com',
        password: 'the same long password',
        account_id: String(second.accountId),
      });
      assert.equal(picked.status, 200, picked.text);
      assert.equal(picked.body.account.id, String(second.accountId));
      const channels = await chooser.get('/admin/api/v1/channels');
      assert.equal(channels.status, 200);

      const notTheirs = await browser().post('/admin/api/session', {
        email: 'person@example.com',
        password: 'the same long password',
        account_id: String(third.accountId),
      });
      assert.equal(notTheirs.status, 401, "another account's password does not open it");
      assertErrorBody(notTheirs.body, 401, 'Wrong email or password.');
      const stranger = await browser().post('/admin/api/session', {
        email: 'person@example.com',
        password: 'the same long password',
        account_id: String(server.accountId),
      });
      assert.equal(stranger.status, 401, 'an account the person is no user of answers like a wrong password');
      assertErrorBody(stranger.body, 401, 'Wrong email or password.');
      const bad = await browser().post('/admin/api/session', { email: 'person@example.com', password: 'the same long password', account_id: 'one' });
      assert.equal(bad.status, 422);
      assertErrorBody(bad.body, 422, 'The account id is not valid.', 'account_id');
    });

    test('a user who must change the password may only change it, see the session and sign out', async () => {
      await addUser('forced@example.com', 'owner');
      const client = browser();
      assert.equal((await client.signIn('forced@example.com', PASSWORD)).status, 200);
      const session = await client.get('/admin/api/session');
      assert.equal(session.status, 200);
      assert.equal(session.body.user.must_change_password, true);
      const refused: Array<[string, string, unknown]> = [
        ['POST', '/admin/api/v1/channels', { type: 'service_chat', name: 'Sneaky' }],
        ['GET', '/admin/api/v1/channels', undefined],
        ['GET', '/admin/api/users', undefined],
        ['POST', '/admin/api/users', { email: 'friend@example.com', role: 'owner' }],
        ['GET', '/admin/api/tokens', undefined],
        ['GET', '/admin/api/no/such/thing', undefined],
      ];
      for (const [method, path, body] of refused) {
        const res = await client.request(method, path, body);
        assert.equal(res.status, 403, `${method} ${path}`);
        assertErrorBody(res.body, 403, 'Change your password first: it was chosen by someone else.');
      }
      const changed = await client.post('/admin/api/session/password', { current_password: PASSWORD, new_password: 'one of my very own' });
      assert.equal(changed.status, 204, changed.text);
      const made = await client.post('/admin/api/v1/channels', { type: 'service_chat', name: 'Now allowed' });
      assert.equal(made.status, 201, made.text);

      await addUser('forced-out@example.com', 'member');
      const other = browser();
      assert.equal((await other.signIn('forced-out@example.com', PASSWORD)).status, 200);
      assert.equal((await other.delete('/admin/api/session')).status, 204, 'sign-out is allowed');
    });

    test('a session cookie given twice is refused in the error format; over HTTPS only the __Host- cookie counts', async () => {
      const { client } = await signedIn('twice@example.com');
      const real = client.cookie!;
      for (const cookie of [
        `parley_session=${real}; parley_session=planted`,
        `parley_session=planted; parley_session=${real}`,
        `parley_session=${real}; parley_session=${real}`,
      ]) {
        const res = await client.get('/admin/api/session', { cookie });
        assert.equal(res.status, 400, cookie);
        assertErrorBody(res.body, 400, /session cookie more than once/);
      }
      const others = await client.get('/admin/api/session', { cookie: `theme=dark; parley_session=${real}; __Host-parley_session=x` });
      assert.equal(others.status, 200, 'other names, the prefixed one included, are not ours over HTTP');

      const https = { 'x-forwarded-proto': 'https' };
      await addUser('host-prefix@example.com');
      const secure = browser();
      const res = await secure.post('/admin/api/session', { email: 'host-prefix@example.com', password: PASSWORD }, https);
      assert.equal(res.status, 200);
      const set = secure.lastSetCookie ?? '';
      assert.match(set, /^__Host-parley_session=[A-Za-z0-9_-]{43}; /);
      for (const flag of ['Path=/', 'Secure', 'HttpOnly', 'SameSite=Strict']) assert.ok(set.split('; ').includes(flag), `${flag} in ${set}`);
      assert.ok(!/Domain=/i.test(set));
      assert.equal((await secure.get('/admin/api/session', https)).status, 200);
      const plain = await secure.get('/admin/api/session', { ...https, cookie: `parley_session=${secure.cookie}` });
      assert.equal(plain.status, 401, 'over HTTPS the unprefixed name is not read');
      const doubled = await secure.get('/admin/api/session', { ...https, cookie: `__Host-parley_session=${secure.cookie}; __Host-parley_session=planted` });
      assert.equal(doubled.status, 400);
      const out = await secure.delete('/admin/api/session', https);
      assert.equal(out.status, 204);
      assert.match(secure.lastSetCookie ?? '', /^__Host-parley_session=; Path=\/; .*Max-Age=0; Secure/);
    });

    test("the app's reads take from the sessions' own allowance: 300 at once, then 5 a second, per account", async () => {
      const busy = await server.newAccount('free');
      const { client } = await signedIn('reader@example.com', 'owner', busy.accountId);
      const { client: bystander } = await signedIn('bystander-reader@example.com', 'owner');
      // The sign-in's own reads are not counted (sign-in needs no session); every GET below is.
      let refused: Awaited<ReturnType<typeof client.get>> | undefined;
      let served = 0;
      for (let i = 0; i < 301 && !refused; i++) {
        const res = await client.get('/admin/api/session');
        if (res.status === 200) served++;
        else refused = res;
      }
      assert.equal(served, 300);
      assert.equal(refused?.status, 429);
      assertErrorBody(refused!.body, 429, /Too many reads by this account's administration sessions/);
      assert.equal(refused!.headers.get('retry-after'), '1');
      assert.equal((await bystander.get('/admin/api/session')).status, 200, 'another account reads on');
      assert.equal((await busy.api.get('/v1/channels')).status, 200, "the account's token is not held back");
      clock.advance(1000);
      for (let i = 0; i < 5; i++) assert.equal((await client.get('/admin/api/session')).status, 200, `read ${i} of the next second`);
      assert.equal((await client.get('/admin/api/session')).status, 429);
      clock.advance(60_000);
    });

    test("at most 8 requests of an account's sessions are in flight at once", async () => {
      const held = await server.newAccount('enterprise');
      const { client } = await signedIn('holder@example.com', 'owner', held.accountId);
      const { host, port } = new URL(server.origin);
      // Changes whose bodies have not arrived yet: each holds its slot from the guard on.
      const sockets = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const socket = connect(Number(port), '127.0.0.1');
          await once(socket, 'connect');
          socket.write(
            `POST /admin/api/v1/channels HTTP/1.1\r\nHost: ${host}\r\nCookie: parley_session=${client.cookie}\r\nX-CSRF-Token: ${client.csrf}\r\n` +
              `X-Forwarded-For: ${client.clientAddress}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{`,
          );
          return socket;
        }),
      );
      try {
        await eventually(async () => ((await client.get('/admin/api/session')).status === 429 ? true : undefined), 15_000, 'the eight held');
        const busy = await client.get('/admin/api/session');
        assert.equal(busy.status, 429);
        assertErrorBody(busy.body, 429, /at once \(8\)/);
        const answers = sockets.map(async (socket) => {
          let text = '';
          socket.on('data', (d) => (text += String(d)));
          socket.end('}');
          await once(socket, 'close');
          return text;
        });
        for (const text of await Promise.all(answers)) assert.match(text, /^HTTP\/1.1 422 /);
      } finally {
        for (const socket of sockets) socket.destroy();
      }
      assert.equal((await client.get('/admin/api/session')).status, 200, 'the slots came back');
    });

    test('deleting an account removes its users and ends their sessions', async () => {
      const doomed = await server.newAccount('free');
      const { client } = await signedIn('doomed@example.com', 'owner', doomed.accountId);
      assert.ok(await server.runtime.services.accounts.deleteAccount(doomed.accountId));
      assert.equal((await client.get('/admin/api/session')).status, 401);
      assert.equal((await browser().signIn('doomed@example.com', PASSWORD)).status, 401);
    });

    test('the app: index.html for client-side routes, hashed assets cached, security headers everywhere', async () => {
      const client = browser();
      const root = await client.get('/');
      assert.equal(root.status, 302);
      assert.equal(root.headers.get('location'), '/admin/');
      const bare = await client.get('/admin');
      assert.equal(bare.status, 302);
      assert.equal(bare.headers.get('location'), '/admin/');
      assertSecurityHeaders(bare.headers, '/admin');

      for (const path of ['/admin/', '/admin/channels/123/webhook', '/admin/setup?token=abc']) {
        const page = await client.get(path);
        assert.equal(page.status, 200, path);
        assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
        assert.match(page.text, /<title>Parley administration<\/title>/);
        assert.equal(page.headers.get('cache-control'), 'no-cache');
        assertSecurityHeaders(page.headers, path);
      }
      const asset = await client.get('/admin/assets/app-3f2a9c.js');
      assert.equal(asset.status, 200);
      assert.match(asset.headers.get('content-type') ?? '', /^text\/javascript/);
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assertSecurityHeaders(asset.headers, 'asset');
      const again = await client.get('/admin/assets/app-3f2a9c.js', { 'if-none-match': asset.headers.get('etag') ?? '' });
      assert.equal(again.status, 304);
      const icon = await client.get('/admin/favicon.svg');
      assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
      const missing = await client.get('/admin/assets/app-000000.js');
      assert.equal(missing.status, 404, 'a missing asset is not the page');
      assertSecurityHeaders(missing.headers, 'missing asset');
      const escape = await client.get('/admin/..%2f..%2fpackage.json');
      assert.notEqual(escape.status, 200, escape.text.slice(0, 80));
      const post = await client.post('/admin/channels', {});
      assert.equal(post.status, 405);
      assertSecurityHeaders(post.headers, 'POST to a page');

      const doc = await client.get('/v1/openapi.json');
      // The app's pages are not in the API document; its own API is, under the Administration tag (the /v1 routes mounted again are not repeated).
      const admin = Object.entries(doc.body.paths as Record<string, Record<string, { tags?: string[] }>>).filter(([p]) => p.includes('admin'));
      assert.ok(admin.length > 0);
      for (const [path, item] of admin) {
        assert.ok(path.startsWith('/admin/api/') && !path.startsWith('/admin/api/v1'), path);
        for (const op of Object.values(item)) assert.deepEqual(op.tags, ['Administration'], path);
      }
    });
  });
}

describe('administration app not built', () => {
  plainTest('every /admin page answers 503 saying how to build it', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'parley-admin-none-'));
    const server = await startTestServer('sqlite', { adminAppDir: join(empty, 'missing') });
    try {
      const res = await new AdminClient(server.origin).get('/admin/channels');
      assert.equal(res.status, 503);
      assertErrorBody(res.body, 503, 'The administration app is not built: run `npm run build`.');
      assertSecurityHeaders(res.headers, '503');
    } finally {
      await server.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
