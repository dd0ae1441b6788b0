import { createServer, type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime.js';
import { createTestDatabase, type Dialect, type TestDatabase } from './databases.js';
import { ApiClient, type ApiTransport } from './api-client.js';

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
  /** A client of the same service with another token (or none), sent the way `api` is. */
  client(token: string | null): ApiClient;
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
export function startTestServer(dialect: Dialect, options: TestServerOptions = {}): Promise<TestServer> {
  return startService(dialect, options, true);
}

/**
 * The route-level tier: the same service on the same fresh database, built but not listening;
 * `api` hands each request to the app in this process (Fastify's inject) instead of a socket.
 * For tests of requests and answers, where a port adds nothing but time: those of webhooks to
 * receivers, the chat's sockets, streamed uploads, connections and processes keep a real port.
 * `origin` names no listener (a port where nothing answers), so a stray real call fails at once.
 */
export function startTestApp(dialect: Dialect, options: Omit<TestServerOptions, 'port'> = {}): Promise<TestServer> {
  return startService(dialect, options, false);
}

/** The discard port: nothing listens there, so a call to an app that is not listening fails fast. */
const NOT_LISTENING = 9;

async function startService(dialect: Dialect, options: TestServerOptions, listen: boolean): Promise<TestServer> {
  const db = options.db ?? (await createTestDatabase(dialect));
  const port = listen ? (options.port ?? (await freePort())) : NOT_LISTENING;
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
  let transport: ApiTransport | undefined;
  if (listen) await runtime.app.listen({ port, host: '127.0.0.1' });
  else {
    await runtime.app.ready();
    transport = async ({ method, url, headers, payload }) => {
      const res = await runtime.app.inject({ method: method as 'GET', url, headers, payload });
      const answer = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined) continue;
        for (const one of Array.isArray(value) ? value : [value]) answer.append(name, String(one));
      }
      return { status: res.statusCode, headers: answer, text: res.body };
    };
  }
  if (options.workers) runtime.startWorkers();

  const client = (token: string | null) => new ApiClient(origin, token, transport);
  const newAccount: TestServer['newAccount'] = async (plan = 'enterprise', limits = {}) => {
    const account = await runtime.services.accounts.createAccount({ name: 'test', plan, ...limits });
    const { accessToken } = await runtime.services.accounts.createToken(account.id);
    return { accountId: account.id, token: accessToken, api: client(accessToken) };
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
    client,
    newAccount,
    async close() {
      await runtime.close();
      if (!options.db) await db.drop();
    },
  };
}

/**
 * A port that was free a moment ago; {base_url} must name the real port before the app is built.
 * Taken below the kernel's range of ephemeral ports, so that no outgoing connection (to the
 * database, between processes) can take it before whoever it is for listens on it.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralLow();
  for (let attempt = 0; attempt < 50 && below > PORTS_FROM + 1_000; attempt++) {
    const port = PORTS_FROM + Math.floor(Math.random() * (below - PORTS_FROM));
    const taken = await bindAndRelease(port).then(
      () => false,
      () => true,
    );
    if (!taken) return port;
  }
  return bindAndRelease(0);
}

/** Test ports are chosen from here up to the ephemeral range (well above the usual services' ports). */
const PORTS_FROM = 10_000;

function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 0;
  } catch {
    return 0;
  }
}

/** Listens on `port` (0: any) of 127.0.0.1, closes, and answers the port. */
function bindAndRelease(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}
