/**
 * A signed-in administration app user for the data route tests: a user made through the user
 * service, signed in over HTTP, then every request with the session cookie and the CSRF token.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { ApiClient, ApiResponse } from '../helpers/api-client.js';
import type { TestServer } from '../helpers/runtime.js';

/** Cheap hashing for tests (ADMIN_PASSWORD_COST takes 10 at least). */
export const ADMIN_TEST_ENV = { ADMIN_PASSWORD_COST: '10' };

export class AdminClient {
  constructor(
    /** The service's client without a token: over a socket or in process, as the test started it. */
    private readonly http: ApiClient,
    private readonly cookie: string,
    readonly csrf: string,
  ) {}

  get origin(): string {
    return this.http.origin;
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    const h: Record<string, string> = { cookie: this.cookie, ...headers };
    if (method !== 'GET' && method !== 'HEAD' && !('x-csrf-token' in h)) h['x-csrf-token'] = this.csrf;
    return this.http.request(method, `/admin/api${path}`, body, h);
  }

  get(path: string) {
    return this.request('GET', path);
  }
  post(path: string, body?: unknown) {
    return this.request('POST', path, body);
  }
  delete(path: string) {
    return this.request('DELETE', path);
  }
}

/** A user of `accountId` with `role`, with a password of their own (through a setup link, as a new user), signed in. */
export async function signedIn(s: TestServer, accountId: number, role: 'owner' | 'member'): Promise<AdminClient> {
  const email = `${role}-${randomBytes(4).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const { users } = s.runtime.services;
  const made = await users.createUser({ accountId, email, role });
  await users.setUp(new URL(made.setupLink ?? '').searchParams.get('token') ?? '', password);
  const http = s.client(null);
  const res = await http.post('/admin/api/session', { email, password });
  const text = res.text;
  assert.equal(res.status, 200, text);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  assert.ok(cookie?.startsWith('parley_session='), 'a session cookie');
  return new AdminClient(http, cookie, JSON.parse(text).csrf_token);
}
