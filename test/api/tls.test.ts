import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
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

  test('answers over TLS with the configured certificate', async () => {
    const port = new URL(s.origin).port;
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/v1/channels', ca: cert.cert, servername: 'localhost', headers: { authorization: `Bearer ${s.token}` } },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += String(d)));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 200);
    assert.deepEqual(JSON.parse(body), []);
  });
});
