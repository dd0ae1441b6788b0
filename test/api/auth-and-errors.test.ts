import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { ApiClient } from '../helpers/api-client.js';
import { createLogger } from '../../src/lib/logger.js';

function assertErrorBody(body: any, status: number) {
  assert.equal(typeof body.timestamp, 'string');
  assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
  assert.equal(body.status.code, String(status));
  assert.equal(typeof body.status.message, 'string');
  assert.ok(Array.isArray(body.errors) && body.errors.length > 0);
  for (const e of body.errors) assert.equal(typeof e.message, 'string');
}

for (const { dialect, skip } of await dialects()) {
  describe(`Authentication and the error contract (${dialect})`, { skip }, () => {
    let s: TestServer;
    let anonymous: ApiClient;
    const logLines: string[] = [];
    before(async () => {
      const sink = new Writable({
        write(chunk, _enc, done) {
          logLines.push(String(chunk));
          done();
        },
      });
      s = await startTestApp(dialect, {
        env: { BODY_LIMIT_BYTES: '2048' },
        logger: createLogger('info', sink as never),
        extraRoutes: [
          async (app) => {
            app.get('/v1/test-crash', async () => {
              throw new Error('secret internal detail');
            });
          },
        ],
      });
      anonymous = s.client(null);
    });
    after(async () => s?.close());

    test('no token: 401 Missing access token.', async () => {
      const res = await anonymous.get('/v1/channels');
      assert.equal(res.status, 401);
      assertErrorBody(res.body, 401);
      assert.equal(res.body.errors[0].message, 'Missing access token.');
      assert.equal(res.headers.get('x-ratelimit-limit'), null);
    });

    test('unknown token: 401 Wrong accessToken.', async () => {
      const res = await anonymous.get('/v1/channels', { authorization: 'Bearer prl_nope' });
      assert.equal(res.status, 401);
      assert.equal(res.body.errors[0].message, 'Wrong accessToken.');
    });

    test('token in the access_token query parameter works', async () => {
      const res = await anonymous.get(`/v1/channels?access_token=${s.token}`);
      assert.equal(res.status, 200);
    });

    test('a revoked token stops working', async () => {
      const { token } = await s.newAccount();
      const client = s.client(token);
      assert.equal((await client.get('/v1/channels')).status, 200);
      assert.equal(await s.runtime.services.accounts.revokeToken(token), true);
      const res = await client.get('/v1/channels');
      assert.equal(res.status, 401);
      assert.equal(res.body.errors[0].message, 'Wrong accessToken.');
    });

    test('authentication comes before 404, 405 and body validation', async () => {
      assert.equal((await anonymous.get('/v1/no-such-thing')).status, 401);
      assert.equal((await anonymous.request('PUT', '/v1/channels')).status, 401);
      assert.equal((await anonymous.post('/v1/channels', '{not json')).status, 401);
      assert.equal((await anonymous.post('/v1/channels', { type: 'nope' })).status, 401);
    });

    test('unknown route: 404 in the error format', async () => {
      const res = await s.api.get('/v1/no-such-thing');
      assert.equal(res.status, 404);
      assertErrorBody(res.body, 404);
    });

    test('wrong method: 405 naming method and path', async () => {
      const res = await s.api.request('PUT', '/v1/channels');
      assert.equal(res.status, 405);
      assertErrorBody(res.body, 405);
      assert.equal(res.body.errors[0].message, 'Method PUT is not allowed for resource /v1/channels.');
      assert.match(res.headers.get('allow') ?? '', /GET/);
      const res2 = await s.api.request('POST', '/v1/channels/123');
      assert.equal(res2.status, 405);
      assert.equal(res2.body.errors[0].message, 'Method POST is not allowed for resource /v1/channels/123.');
    });

    test('malformed JSON: 400', async () => {
      const res = await s.api.post('/v1/channels', '{"type": "service_chat",');
      assert.equal(res.status, 400);
      assertErrorBody(res.body, 400);
      assert.equal(res.body.errors[0].message, 'Request body is not valid JSON.');
    });

    test('a body that is not an object: 400', async () => {
      for (const body of ['[1,2]', '"text"', '42', 'null']) {
        const res = await s.api.post('/v1/channels', body);
        assert.equal(res.status, 400, body);
        assertErrorBody(res.body, 400);
      }
    });

    test('body size limit: at the limit accepted, one byte over refused with 413', async () => {
      const base = JSON.stringify({ type: 'service_chat', name: '' });
      const fill = 2048 - base.length;
      const atLimit = JSON.stringify({ type: 'service_chat', name: 'n'.repeat(fill) });
      assert.equal(Buffer.byteLength(atLimit), 2048);
      const ok = await s.api.post('/v1/channels', atLimit);
      assert.notEqual(ok.status, 413);
      const over = JSON.stringify({ type: 'service_chat', name: 'n'.repeat(fill + 1) });
      const res = await s.api.post('/v1/channels', over);
      assert.equal(res.status, 413);
      assertErrorBody(res.body, 413);
    });

    test('unknown properties: 422 with field and rejected_value', async () => {
      const res = await s.api.post('/v1/channels', { type: 'service_chat', name: 'x', colour: 'red' });
      assert.equal(res.status, 422);
      assertErrorBody(res.body, 422);
      assert.deepEqual(res.body.errors[0], { message: "Property 'colour' is not supported.", field: 'colour', rejected_value: 'red' });
    });

    test('null required property: the specification message, rejected_value null', async () => {
      const res = await s.api.post('/v1/channels', { type: 'service_chat', name: null });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.errors[0], { message: "Property 'name' cannot be null.", field: 'name', rejected_value: null });
    });

    test('unexpected failure: generic 500 with the request id, details only in the log', async () => {
      const res = await s.api.get('/v1/test-crash');
      assert.equal(res.status, 500);
      assertErrorBody(res.body, 500);
      const requestId = res.headers.get('x-request-id');
      assert.ok(requestId);
      assert.ok(res.body.errors[0].message.includes(requestId));
      assert.ok(!res.text.includes('secret internal detail'));
      const logged = logLines.map((l) => JSON.parse(l)).find((l) => l.reqId === requestId && l.level === 50);
      assert.ok(logged, 'the error is logged with the request id');
      assert.ok(JSON.stringify(logged).includes('secret internal detail'));
    });

    test('logs carry request ids and never tokens or webhook secrets', async () => {
      const created = await s.api.post(
        `/v1/channels?access_token=${s.token}`,
        { type: 'service_chat', name: 'logged', webhook: { url: 'https://example.com/h' } },
        { authorization: '' },
      );
      assert.equal(created.status, 201);
      const all = logLines.join('\n');
      assert.ok(all.includes('"reqId"'));
      assert.ok(!all.includes(s.token), 'token must not be logged');
      assert.ok(!all.includes(created.body.webhook.secret), 'webhook secret must not be logged');
    });
  });
}
