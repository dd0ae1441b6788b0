/**
 * The processes of the scale-out test: API and worker processes of `parley serve` on one
 * PostgreSQL database, each with its own `application_name` (so the test can find and end its
 * database sessions) and a fixed port, so a process killed and started again is reached where it was.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { baseEnv, spawnServer, waitUntilReady, type ServerProcess } from '../helpers/processes.js';
import { freePort } from '../helpers/runtime.js';

export interface Member {
  name: string;
  role: 'api' | 'worker';
  /** The API origin (api) or the health listener's (worker). */
  origin: string;
  process: ServerProcess;
  /** False from just before a kill until it answers /readyz again. */
  up: boolean;
  start(): Promise<void>;
  /** SIGKILL, then start again after `downMs`. */
  crash(downMs: number): Promise<void>;
}

export interface ClusterOptions {
  db: { url: string; dataDir: string };
  /** Settings every process gets. */
  env: Record<string, string>;
  /** Where workers say the API is (their PUBLIC_URL: the platforms' status report URLs are built from it). */
  publicApi: () => string;
}

/** The connection string of one member: the same database, sessions named after the member. */
export function memberUrl(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', `parley-scaleout-${name}`);
  return u.toString();
}

export async function member(name: string, role: 'api' | 'worker', options: ClusterOptions): Promise<Member> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const env = () =>
    baseEnv(
      { url: memberUrl(options.db.url, name), dataDir: options.db.dataDir },
      {
        ...options.env,
        ROLE: role,
        PORT: String(port),
        PUBLIC_URL: role === 'api' ? `${origin}/v1` : options.publicApi(),
      },
    );
  const m: Member = {
    name,
    role,
    origin,
    process: undefined as unknown as ServerProcess,
    up: false,
    async start() {
      m.process = spawnServer(env());
      await waitUntilReady(origin, m.process, 120_000);
      m.up = true;
    },
    async crash(downMs) {
      m.up = false;
      await m.process.kill('SIGKILL');
      await sleep(downMs);
      await m.start();
    },
  };
  return m;
}
