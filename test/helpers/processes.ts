/**
 * The service as real, separate processes: the CLI (`parley <command>`) and `parley serve`, for
 * tests of the CLI, of a killed server, of several servers or workers on one database. They run
 * the bundle scripts/run-tests.mjs made, or the sources through tsx (entry-points.ts).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { entryArgs } from './entry-points.js';

const run = promisify(execFile);
const CLI = entryArgs('cli');

/** Runs one CLI command to completion and parses its JSON output. */
export async function cli(args: string[], env: Record<string, string>): Promise<any> {
  const { stdout } = await run(process.execPath, [...CLI, ...args], { env: { ...process.env, ...env }, cwd: process.cwd() });
  return JSON.parse(stdout);
}

/** Runs a CLI command and returns its exit code and output, without throwing on failure. */
export function cliRaw(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** An enterprise account and its token, made with the CLI as an operator would. */
export async function accountWithToken(env: Record<string, string>): Promise<{ accountId: string; token: string }> {
  const account = await cli(['account', 'create', '--name', 'test', '--plan', 'enterprise'], env);
  const token = await cli(['token', 'create', '--account', account.id], env);
  return { accountId: account.id, token: token.access_token };
}

/** The environment of a server on this database, and nothing else from this process's environment. */
export function baseEnv(db: { url: string; dataDir: string }, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'NODE_OPTIONS']) if (process.env[key] !== undefined) env[key] = process.env[key]!;
  return {
    ...env,
    DATABASE_URL: db.url,
    DATA_DIR: db.dataDir,
    BOOTSTRAP_ACCOUNT: 'false',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    WEBHOOK_ALLOWLIST: '127.0.0.1',
    ...extra,
  };
}

export interface ServerProcess {
  child: ChildProcess;
  /** What it printed so far, stdout and stderr. */
  output(): string;
  /** Resolves with the first line the pattern matches, as soon as it is printed. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends the signal (if it still runs) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Sends the signal (SIGTERM by default) and answers the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A server that answered /readyz at `origin`. */
export interface ListeningServer extends ServerProcess {
  origin: string;
}

/** Starts `parley serve` with exactly this environment; it may not be listening yet. */
export function spawnServer(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, [...CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const w of [...waiters]) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => {
    done = true;
    for (const w of [...waiters]) w();
  });
  const kill = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (!done) child.kill(signal);
    await exited;
  };
  return {
    child,
    output: () => text,
    waitForLine(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const line = text.split('\n').find((l) => pattern.test(l));
          if (line !== undefined) finish(() => resolve(line));
          else if (done) finish(() => reject(new Error(`server exited before ${String(pattern)}:\n${text}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`no ${String(pattern)} within ${timeoutMs} ms:\n${text}`))), timeoutMs);
        const finish = (settle: () => void) => {
          waiters.delete(look);
          clearTimeout(timer);
          settle();
        };
        waiters.add(look);
        look();
      });
    },
    exited,
    kill,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      await kill(signal);
      return (await exited).code;
    },
  };
}

/** Resolves when the server at `origin` answers /readyz with 200; fails early if it exits. */
export async function waitUntilReady(origin: string, server: ServerProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`server exited early: ${server.output()}`);
    try {
      if ((await fetch(`${origin}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      server.child.kill('SIGKILL');
      throw new Error(`server did not become ready: ${server.output()}`);
    }
    await sleep(50);
  }
}

/** Starts `parley serve` on this port (this process's environment, then `env`) and waits until /readyz answers. */
export async function startServerProcess(env: Record<string, string>, port: number): Promise<ListeningServer> {
  const server = spawnServer({
    ...(process.env as Record<string, string>),
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}/v1`,
    ...env,
  });
  const origin = `http://127.0.0.1:${port}`;
  await waitUntilReady(origin, server);
  return { ...server, origin };
}
