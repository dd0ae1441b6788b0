import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { selfSignedCert, type SelfSignedCert } from '../helpers/certs.js';

const PASSWORD = 'correct horse battery';

/** Served over TLS directly, the session cookie is Secure without any proxy header. */
describe('administration sign-in over HTTPS', () => {
  let s: TestServer;
  let cert: SelfSignedCert;
  before(async () => {
    cert = selfSignedCert();
    s = await startTestServer('sqlite', { env: { TLS_CERT_FILE: cert.certFile, TLS_KEY_FILE: cert.keyFile, ADMIN_PASSWORD_COST: '10' } });
  });
  after(async () => s?.close());

  test('the session cookie is __Host- prefixed: Secure, Path=/, no Domain', async () => {
    await s.runtime.services.users.createUser({ accountId: s.accountId, email: 'tls@example.com', role: 'owner', password: PASSWORD });
    const port = new URL(s.origin).port;
    const body = JSON.stringify({ email: 'tls@example.com', password: PASSWORD });
    const { status, cookies } = await new Promise<{ status: number; cookies: string[] }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/admin/api/session',
          ca: cert.cert,
          servername: 'localhost',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, cookies: res.headers['set-cookie'] ?? [] }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(status, 200);
    const session = cookies.find((c) => c.startsWith('__Host-parley_session='));
    const flags = session?.split('; ') ?? [];
    assert.ok(flags.includes('Secure') && flags.includes('Path=/') && !flags.some((f) => f.startsWith('Domain')), String(session));
    assert.ok(!cookies.some((c) => c.startsWith('parley_session=')), 'no unprefixed cookie');
  });
});
