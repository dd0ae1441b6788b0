import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ApiClient } from '../helpers/api-client.js';
import { rawRequest } from '../helpers/raw-http.js';
import { assertErrorBody } from '../helpers/error-format.js';
import { AccountService } from '../../src/domain/accounts/service.js';

for (const { dialect, skip } of await dialects()) {
  describe(`Security: the token is checked on the matched route, however the path is spelled (${dialect})`, { skip }, () => {
    let s: TestServer;
    let anonymous: ApiClient;
    let host: string;
    before(async () => {
      s = await startTestServer(dialect);
      anonymous = new ApiClient(s.origin, null);
      host = new URL(s.origin).host;
    });
    after(async () => s?.close());

    const missing = (res: { status: number; body: any; headers?: Headers | Record<string, string> }, what: string) => {
      assert.equal(res.status, 401, what);
      assertErrorBody(res.body, 401, what);
      assert.equal(res.body.errors[0].message, 'Missing access token.', what);
    };

    test('percent-encoded spellings of /v1 routes answer 401 without a token and change nothing', async () => {
      const id = (await s.api.post('/v1/channels', { type: 'service_chat', name: 'kept' })).body.id as string;
      const spellings: Array<[string, string, unknown?]> = [
        ['GET', '/%761/channels'],
        ['GET', `/v%31/channels/${id}`],
        ['GET', `/%76%31/channels/${id}/settings`],
        ['PATCH', `/v1/%63hannels/${id}`, { name: 'changed' }],
        ['DELETE', `/%761/channels/${id}`],
        ['POST', '/%761/channels', { type: 'service_chat', name: 'sneaked' }],
        ['POST', '/%761/messages', { channel: { id }, contact: { id: '1' }, content: { type: 'text', payload: 'x' } }],
      ];
      for (const [method, path, body] of spellings) {
        const res = await anonymous.request(method, path, body);
        missing(res, `${method} ${path}`);
        assert.equal(res.headers.get('x-ratelimit-limit'), null, `${method} ${path} is not counted`);
      }
      const still = await s.api.get(`/v1/channels/${id}`);
      assert.equal(still.status, 200);
      assert.equal(still.body.name, 'kept');
      assert.equal((await s.api.get('/v1/channels')).body.length, 1);
    });

    test('with a token, an encoded spelling is the same route and counts against the quota', async () => {
      const res = await s.api.get('/%761/channels');
      assert.equal(res.status, 200);
      assert.ok(Array.isArray(res.body));
      assert.ok(res.headers.get('x-ratelimit-remaining'));
    });

    test('an absolute-form request line is guarded like its path', async () => {
      const id = (await s.api.post('/v1/channels', { type: 'service_chat', name: 'absolute' })).body.id as string;
      const get = await rawRequest(s.origin, `GET http://${host}/v1/channels HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      missing(get, 'absolute GET');
      const del = await rawRequest(s.origin, `DELETE http://${host}/v1/channels/${id} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      missing(del, 'absolute DELETE');
      assert.equal((await s.api.get(`/v1/channels/${id}`)).status, 200);
      const authorised = await rawRequest(
        s.origin,
        `GET http://${host}/v1/channels/${id} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${s.token}\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(authorised.status, 200);
      assert.equal(authorised.body.id, id);
    });

    test('a path under /v1 that no route serves: 401 without a token in every spelling, 404 or 405 with one', async () => {
      for (const path of ['/v1/no-such-thing', '/%761/no-such-thing', '/v%31', '/v1/channels/1/nothing']) {
        missing(await anonymous.get(path), path);
        const found = await s.api.get(path);
        assert.equal(found.status, 404, path);
        assertErrorBody(found.body, 404, path);
      }
      missing(await rawRequest(s.origin, `GET http://${host}/v1/no-such-thing HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`), 'absolute unmatched');
      missing(await anonymous.request('PUT', '/%761/channels'), 'PUT /%761/channels');
      const wrongMethod = await s.api.request('PUT', '/%761/channels');
      assert.equal(wrongMethod.status, 405);
      assert.equal(wrongMethod.body.errors[0].message, 'Method PUT is not allowed for resource /v1/channels.');
    });

    test('a HEAD request is guarded, and counted once', async () => {
      const head = await anonymous.request('HEAD', '/%761/channels');
      assert.equal(head.status, 401);
      const { api } = await s.newAccount('enterprise', { hourlyLimit: 100 });
      const first = Number((await api.get('/v1/channels')).headers.get('x-ratelimit-remaining'));
      const counted = await api.request('HEAD', '/v1/channels');
      assert.equal(counted.status, 200);
      assert.equal(Number(counted.headers.get('x-ratelimit-remaining')), first - 1);
    });

    test('public routes answer without a token: health, documentation, widget, stored files, platform callbacks', async () => {
      assert.equal((await anonymous.get('/healthz')).status, 200);
      assert.equal((await anonymous.get('/readyz')).status, 200);
      assert.equal((await anonymous.get('/v1/openapi.json')).status, 200);
      assert.equal((await fetch(`${s.origin}/v1/docs/`)).status, 200);
      assert.equal((await fetch(`${s.origin}/v1/docs/static/index.html`)).status, 200);
      assert.equal((await fetch(`${s.origin}/widget.js`)).status, 200);
      const file = await anonymous.get('/v1/files/aaaaaaaaaaaaaaaaaaaaaaaa/name.txt');
      assert.equal(file.status, 404);
      assertErrorBody(file.body, 404, 'stored file');
      const deleteFile = await anonymous.delete('/v1/files/a/b');
      assert.equal(deleteFile.status, 405, 'every method of the path is public: the client is told which exist');
      assertErrorBody(deleteFile.body, 405);
      const handshake = await anonymous.get('/v1/inbound/socialnet_chat?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1');
      assert.equal(handshake.status, 403);
      assertErrorBody(handshake.body, 403, 'refused handshake');
      const unknownPlatform = await anonymous.post('/v1/inbound/no_such_platform', '{}');
      assert.equal(unknownPlatform.status, 404);
      assertErrorBody(unknownPlatform.body, 404);
    });
  });

  describe(`Security: credentials (${dialect})`, { skip }, () => {
    let s: TestServer;
    let anonymous: ApiClient;
    before(async () => {
      s = await startTestServer(dialect, { env: { AUTH_CACHE_MS: '60000' } });
      anonymous = new ApiClient(s.origin, null);
    });
    after(async () => s?.close());

    const wrong = (res: { status: number; body: any }, what: string) => {
      assert.equal(res.status, 401, what);
      assertErrorBody(res.body, 401, what);
      assert.equal(res.body.errors[0].message, 'Wrong accessToken.', what);
    };

    test('a credential that is given but is not a valid token: 401 Wrong accessToken.', async () => {
      const headers = [
        'Bearer abc def',
        'Basic dXNlcjpwYXNz',
        s.token,
        `Bearer ${s.token} x`,
        `Token ${s.token}`,
        'Bearer',
        'Bearer ',
        `Bearer ${s.token}\u00e9`,
        `Bearer ${'a'.repeat(300)}`,
      ];
      for (const authorization of headers) wrong(await anonymous.get('/v1/channels', { authorization }), `Authorization: ${authorization.slice(0, 40)}`);
      wrong(await anonymous.get(`/v1/channels?access_token=${s.token}&access_token=${s.token}`), 'repeated access_token');
      wrong(await anonymous.get('/v1/channels?access_token='), 'empty access_token');
      wrong(await anonymous.get(`/v1/channels?access_token=${s.token}`, { authorization: 'Bearer prl_other' }), 'two different tokens');
      wrong(await anonymous.get('/%761/no-such-thing', { authorization: 'Basic x' }), 'unmatched path');
    });

    test('only an absent credential is Missing access token.; the valid forms work', async () => {
      const res = await anonymous.get('/v1/channels');
      assert.equal(res.body.errors[0].message, 'Missing access token.');
      assert.equal((await anonymous.get('/v1/channels', { authorization: `bearer ${s.token}` })).status, 200);
      assert.equal((await anonymous.get(`/v1/channels?access_token=${s.token}`, { authorization: '' })).status, 200);
      assert.equal((await anonymous.get(`/v1/channels?access_token=${s.token}`, { authorization: `Bearer ${s.token}` })).status, 200);
    });

    test('an over-long token is refused before any lookup: nothing is cached for it', async () => {
      const before = s.runtime.services.accounts.authCacheSize();
      wrong(await anonymous.get('/v1/channels', { authorization: `Bearer prl_${'x'.repeat(15_000)}` }), 'a 15 KB token');
      wrong(await anonymous.get(`/v1/channels?access_token=prl_${'y'.repeat(253)}`), '257 characters');
      assert.deepEqual(s.runtime.services.accounts.authCacheSize(), before);
    });

    test('made-up tokens pin 64 characters each, not their text', async () => {
      const before = s.runtime.services.accounts.authCacheSize();
      const tokens = Array.from({ length: 200 }, (_, i) => `prl_${String(i).padStart(6, '0')}${'z'.repeat(246)}`);
      for (let i = 0; i < tokens.length; i += 20) {
        const batch = await Promise.all(tokens.slice(i, i + 20).map((t) => anonymous.get('/v1/channels', { authorization: `Bearer ${t}` })));
        for (const res of batch) wrong(res, 'made-up token');
      }
      const after = s.runtime.services.accounts.authCacheSize();
      assert.equal(after.entries - before.entries, tokens.length);
      assert.ok(
        after.keyChars - before.keyChars <= tokens.length * 64,
        `${after.keyChars - before.keyChars} characters held for ${tokens.length} unknown tokens`,
      );
    });

    test('the token cache is bounded: the oldest lookups make room, a valid token still works', async () => {
      const { clock, store, ids } = s.runtime;
      const accounts = new AccountService({ store, ids, clock, authCacheMs: 60_000, authCacheEntries: 50 });
      for (let i = 0; i < 300; i++) assert.equal(await accounts.authenticate(`prl_bogus_${i}`), null);
      assert.ok(accounts.authCacheSize().entries <= 50, `${accounts.authCacheSize().entries} entries`);
      const account = await accounts.authenticate(s.token);
      assert.equal(account?.id, s.accountId);
      assert.ok(accounts.authCacheSize().entries <= 100);
      assert.equal((await accounts.authenticate(s.token))?.id, s.accountId, 'answered from the cache');
    });
  });
}
