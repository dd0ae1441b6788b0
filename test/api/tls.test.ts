import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { selfSignedCert, type SelfSignedCert } from '../helpers/certs.js';

/** With TLS_CERT_FILE and TLS_KEY_FILE the API itself speaks HTTPS. */
describe('HTTPS served directly', () => {
  let s: TestServer;
  let cert: SelfSignedCert;
  before(async () => {
    cert = selfSignedCert();
    s = await startTestServer('sqlite', { env: { TLS_CERT_FILE: cert.certFile, TLS_KEY_FILE: cert.keyFile } });
  });
  after(async () => s?.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string; headers: IncomingHttpHeaders }>((resolve, reject) => {
      const port = new URL(s.origin).port;
      const req = request({ host: '127.0.0.1', port, path, ca: cert.cert, servername: 'localhost', headers }, (res) => {
        let text = '';
        res.on('data', (d) => (text += String(d)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      });
      req.on('error', reject);
      req.end();
    });

  test('answers over TLS with the configured certificate', async () => {
    const { status, body } = await get('/v1/channels', { authorization: `Bearer ${s.token}` });
    assert.equal(status, 200);
    assert.deepEqual(JSON.parse(body), []);
  });

  test('every answer tells browsers to keep to HTTPS (HSTS), errors and pages too', async () => {
    for (const [path, headers, status] of [
      ['/v1/channels', { authorization: `Bearer ${s.token}` }, 200],
      ['/v1/channels', {}, 401],
      ['/healthz', {}, 200],
      ['/admin/api/session', {}, 401],
      ['/v1/docs/', {}, 200],
    ] as const) {
      const res = await get(path, headers);
      assert.equal(res.status, status, path);
      assert.equal(res.headers['strict-transport-security'], 'max-age=31536000', path);
    }
  });
});

describe('HTTP served directly', () => {
  test('no HSTS header over plain HTTP (it would mean nothing, and a proxy in front decides)', async () => {
    const s = await startTestServer('sqlite');
    try {
      const res = await fetch(`${s.origin}/healthz`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('strict-transport-security'), null);
    } finally {
      await s.close();
    }
  });
});
