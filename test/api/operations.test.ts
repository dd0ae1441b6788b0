import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ApiClient } from '../helpers/api-client.js';

for (const { dialect, skip } of await dialects()) {
  describe(`Operations endpoints (${dialect})`, { skip }, () => {
    let s: TestServer;
    let anonymous: ApiClient;
    before(async () => {
      s = await startTestServer(dialect);
      anonymous = new ApiClient(s.origin, null);
    });
    after(async () => s?.close());

    test('GET /v1/openapi.json is an OpenAPI 3.1 document of the routes, without a token', async () => {
      const res = await anonymous.get('/v1/openapi.json');
      assert.equal(res.status, 200);
      assert.equal(res.body.openapi, '3.1.0');
      assert.equal(res.body.servers[0].url, s.baseUrl);
      const channels = res.body.paths['/channels'];
      assert.ok(channels.get && channels.post, 'list and create are documented');
      assert.ok(res.body.paths['/channels/{channel_id}'].patch);
      assert.ok(channels.post.requestBody, 'create documents its body');
      assert.ok(channels.post.responses['201'], 'create documents 201');
      assert.ok(!Object.keys(res.body.paths).some((p) => p.includes('healthz')));
    });

    test('a readable API reference page is served', async () => {
      const res = await fetch(`${s.origin}/v1/docs/`, { redirect: 'follow' });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      assert.match(await res.text(), /<html/i);
    });

    test('/healthz and /readyz answer without a token; readyz checks the store', async () => {
      assert.deepEqual((await anonymous.get('/healthz')).body, { status: 'ok' });
      const ready = await anonymous.get('/readyz');
      assert.equal(ready.status, 200);
      assert.equal(ready.body.store, dialect);
    });

    test('every response carries a request id', async () => {
      const a = await s.api.get('/v1/channels');
      const b = await s.api.get('/v1/channels');
      assert.match(a.headers.get('x-request-id') ?? '', /^[0-9a-f]{16}$/);
      assert.notEqual(a.headers.get('x-request-id'), b.headers.get('x-request-id'));
    });
  });
}
