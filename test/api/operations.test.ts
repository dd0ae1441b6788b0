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
      assert.equal(res.body.servers[0].url, '/v1', 'relative: "try it" works from any host name');
      const channels = res.body.paths['/channels'];
      assert.ok(channels.get && channels.post, 'list and create are documented');
      assert.ok(res.body.paths['/channels/{channel_id}'].patch);
      assert.ok(channels.post.requestBody, 'create documents its body');
      assert.ok(channels.post.responses['201'], 'create documents 201');
      assert.deepEqual(res.body.paths['/healthz'].get.security, [], 'the health checks are documented as public');
      assert.ok(!Object.keys(res.body.paths).some((p) => p.includes('inbound') || p.includes('openapi')), 'platform callbacks are not');
    });

    test("a readable API reference page is served under the product's name, all from this server", async () => {
      for (const page of ['/v1/docs', '/v1/docs/']) {
        const res = await fetch(`${s.origin}${page}`, { redirect: 'follow' });
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /text\/html/);
        const html = await res.text();
        assert.match(html, /<title>Parley API reference<\/title>/);
        assert.doesNotMatch(html, /Swagger UI/);
        assert.doesNotMatch(html, /(https?:)?\/\/[a-z0-9]/i, 'no external URLs');
        // Every script, style sheet and icon it names is served here.
        const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
        assert.ok(
          assets.some((a) => a.endsWith('/theme/parley.css')),
          'the product style sheet',
        );
        for (const asset of assets) {
          const got = await fetch(new URL(asset, `${s.origin}${page}`));
          assert.equal(got.status, 200, asset);
          await got.arrayBuffer();
        }
      }
      const init = await (await fetch(`${s.origin}/v1/docs/static/swagger-initializer.js`)).text();
      assert.match(init, /data:image\/svg\+xml;base64,/, 'the product logo');
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
