/**
 * The service as real, separate processes (`parley serve` through tsx), for tests that kill a
 * server or run several workers on one database, and the CLI for accounts and tokens.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', 'src/cli.ts'];

export interface ServerProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when a log line matches. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

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

export function startServerProcess(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, [...CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const w of waiters.splice(0)) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => {
    done = true;
    for (const w of waiters.splice(0)) w();
  });
  return {
    child,
    output: () => text,
    async waitForLine(pattern, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = text.split('\n').find((l) => pattern.test(l));
        if (line) return line;
        if (done) throw new Error(`server exited before ${String(pattern)}:\n${text}`);
        if (Date.now() > deadline) throw new Error(`no ${String(pattern)} within ${timeoutMs} ms:\n${text}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 100);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    exited,
    async kill(signal = 'SIGTERM') {
      if (done) return;
      child.kill(signal);
      await exited;
    },
  };
}

export async function cli(env: Record<string, string>, args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [...CLI, ...args], { env });
  return JSON.parse(stdout);
}

/** An enterprise account and its token, made with the CLI as an operator would. */
export async function accountWithToken(env: Record<string, string>): Promise<{ accountId: string; token: string }> {
  const account = await cli(env, ['account', 'create', '--name', 'test', '--plan', 'enterprise']);
  const token = await cli(env, ['token', 'create', '--account', account.id]);
  return { accountId: account.id, token: token.access_token };
}
