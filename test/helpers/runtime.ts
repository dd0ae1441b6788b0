import { createServer, type AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime.js';
import { createTestDatabase, type Dialect, type TestDatabase } from './databases.js';
import { ApiClient } from './api-client.js';

export interface TestServer {
  runtime: Runtime;
  db: TestDatabase;
  /** Origin, e.g. http://127.0.0.1:41234 */
  origin: string;
  /** {base_url}, ending in /v1 */
  baseUrl: string;
  accountId: number;
  token: string;
  api: ApiClient;
  /** Another account with its own token, for isolation tests. */
  newAccount(
    plan?: 'free' | 'developer' | 'enterprise',
    limits?: { hourlyLimit?: number; concurrency?: number },
  ): Promise<{ accountId: number; token: string; api: ApiClient }>;
  close(): Promise<void>;
}

export interface TestServerOptions extends RuntimeOptions {
  env?: Record<string, string>;
  plan?: 'free' | 'developer' | 'enterprise';
  /** Reuse a database (e.g. to restart a server on the same data). */
  db?: TestDatabase;
  workers?: boolean;
  /** Listen on this port (e.g. to restart a server where its browsers reconnect). */
  port?: number;
}

/** Starts the whole service on a fresh database and a real port, with one enterprise account. */
export async function startTestServer(dialect: Dialect, options: TestServerOptions = {}): Promise<TestServer> {
  const db = options.db ?? (await createTestDatabase(dialect));
  const port = options.port ?? (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    PUBLIC_URL: `${origin}/v1`,
    DATABASE_URL: db.url,
    DATA_DIR: db.dataDir,
    LOG_LEVEL: 'silent',
    PORT: String(port),
    HOST: '127.0.0.1',
    BOOTSTRAP_ACCOUNT: 'false',
    AUTH_CACHE_MS: '0',
    WEBHOOK_ALLOWLIST: '127.0.0.1,localhost,::1',
    ...options.env,
  });
  const runtime = await createRuntime(config, options);
  await runtime.app.listen({ port, host: '127.0.0.1' });
  if (options.workers) runtime.startWorkers();

  const newAccount: TestServer['newAccount'] = async (plan = 'enterprise', limits = {}) => {
    const account = await runtime.services.accounts.createAccount({ name: 'test', plan, ...limits });
    const { accessToken } = await runtime.services.accounts.createToken(account.id);
    return { accountId: account.id, token: accessToken, api: new ApiClient(origin, accessToken) };
  };
  const first = await newAccount(options.plan ?? 'enterprise');
  return {
    runtime,
    db,
    origin,
    baseUrl: `${origin}/v1`,
    accountId: first.accountId,
    token: first.token,
    api: first.api,
    newAccount,
    async close() {
      await runtime.close();
      if (!options.db) await db.drop();
    },
  };
}

/** A port that was free a moment ago; {base_url} must name the real port before the app is built. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
