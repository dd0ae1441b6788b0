import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/runtime.js';

const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

/** Headers of the public answers a browser may render: the API reference page and a platform handshake's echo. */
describe('Security: headers of public pages', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer('sqlite', { env: { SOCIALNET_VERIFY_TOKEN: 'the-verify-token' } });
  });
  after(async () => s?.close());

  test('the API reference page and its files carry the CSP and frame protection of the app that shares the origin', async () => {
    for (const path of [
      '/v1/docs',
      '/v1/docs/',
      '/v1/docs/static/swagger-ui-bundle.js',
      '/v1/docs/static/swagger-initializer.js',
      '/v1/docs/static/theme/parley.css',
      '/v1/docs/static/missing.js',
    ]) {
      const res = await fetch(`${s.origin}${path}`, { redirect: 'manual' });
      await res.arrayBuffer();
      assert.ok(res.status < 500, `${path}: ${res.status}`);
      assert.equal(res.headers.get('content-security-policy'), DOCS_CSP, path);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(res.headers.get('referrer-policy'), 'same-origin', path);
    }
  });

  test('the reference page does not keep a pasted token (persistAuthorization off)', async () => {
    const init = await (await fetch(`${s.origin}/v1/docs/static/swagger-initializer.js`)).text();
    assert.match(init, /"persistAuthorization":\s*false/);
  });

  test('the subscription handshake echoes the challenge as text that is never sniffed', async () => {
    const challenge = encodeURIComponent('<script>alert(1)</script>');
    const res = await fetch(`${s.origin}/v1/inbound/socialnet_chat?hub.mode=subscribe&hub.verify_token=the-verify-token&hub.challenge=${challenge}`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '<script>alert(1)</script>');
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  });
});
