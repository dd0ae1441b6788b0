/**
 * What the README tests share: the shell blocks of README.md marked `<!-- quickstart:<name> -->`,
 * a process's output collected and waited on (bounded), and a block run as written against the
 * stand-ins and the server as `npm start` runs it.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './runtime.js';
import { freePortBase, startSandbox } from '../sandbox/helpers/sandbox-process.js';

const README = readFileSync('README.md', 'utf8');

/** The sh block after the marker `<!-- quickstart:<name> -->`. */
export function readmeBlock(name: string): string {
  const at = README.indexOf(`<!-- quickstart:${name} -->`);
  assert.ok(at >= 0, `README.md has no <!-- quickstart:${name} --> marker`);
  const m = /```sh\n([\s\S]*?)```/.exec(README.slice(at));
  assert.ok(m, `no sh block after the ${name} marker`);
  return m[1]!;
}

/** Collects a process's output and waits (bounded) for something in it. */
export class Output {
  text = '';
  constructor(child: ChildProcess) {
    child.stdout?.on('data', (d) => (this.text += String(d)));
    child.stderr?.on('data', (d) => (this.text += String(d)));
  }
  async waitFor(pattern: RegExp, what: string, child: ChildProcess): Promise<RegExpExecArray> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const m = pattern.exec(this.text);
      if (m) return m;
      if (child.exitCode !== null) assert.fail(`${what}: the process exited (${child.exitCode}):\n${this.text}`);
      if (Date.now() > deadline) assert.fail(`${what} did not appear:\n${this.text}`);
      await sleep(50);
    }
  }
}

/**
 * The node flags of the server that `npm start` runs: its script builds what is out of date
 * (scripts/build.mjs), then runs the built CLI with these flags. README tests run the same CLI
 * from the sources with the same flags.
 */
export function npmStartNodeFlags(): string[] {
  const start = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start as string;
  const m = /^node scripts\/build\.mjs && node (.*)dist\/src\/cli\.js serve$/.exec(start);
  assert.ok(m, `npm start builds what is out of date, then runs the built CLI: ${start}`);
  return m[1]!.trim().split(/\s+/).filter(Boolean);
}

/** The administration app's API, signed in as the first owner with the setup link the first start printed. */
export async function adminSession(
  serverOutput: string,
  port: number,
): Promise<{ get(path: string): Promise<Response>; post(path: string): Promise<Response> }> {
  const link = /(http:\/\/\S+\/admin\/setup\?token=\S+)/.exec(serverOutput);
  assert.ok(link, `the first start printed a setup link:\n${serverOutput}`);
  const origin = `http://127.0.0.1:${port}`;
  const token = new URL(link[1]!).searchParams.get('token');
  const setup = await fetch(`${origin}/admin/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ token, password: 'a password of my own' }),
  });
  assert.equal(setup.status, 200, await setup.clone().text());
  const cookie = setup.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = ((await setup.json()) as { csrf_token: string }).csrf_token;
  const headers = { cookie, origin, 'x-csrf-token': csrf };
  return {
    get: (path) => fetch(`${origin}/admin/api${path}`, { headers }),
    post: (path) => fetch(`${origin}/admin/api${path}`, { method: 'POST', headers }),
  };
}

/** The port `npm run sandbox` gives its first stand-in by default (sandbox/registry.ts). */
const DEFAULT_SANDBOX_PORT_BASE = 9101;

export interface ReadmeRun {
  /** What the block printed. */
  stdout: string;
  /** Where the stand-in the block names listens in this run. */
  standInUrl: string;
  /** The server's port ({base_url} is http://localhost:<port>/v1). */
  port: number;
}

/**
 * Runs the README block `name` with bash, as written, against `npm run sandbox` (moved to free
 * ports with SANDBOX_PORT_BASE, which the server is given too) and the server as `npm start` runs
 * it (from the sources), with `TOKEN` the first start's token and `API` its {base_url}. Only the
 * stand-in's URL (the one at `standInOffset`, named at its default port) is replaced. Fails the
 * test when the block exits with an error; everything it started ends with the test.
 */
export async function runReadmeBlock(t: TestContext, name: string, standInOffset: number): Promise<ReadmeRun> {
  assert.equal(spawnSync('curl', ['--version']).status, 0, 'the commands use curl');
  const dir = mkdtempSync(join(tmpdir(), `parley-readme-${name}-`));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir };

  const base = await freePortBase();
  const sandbox = await startSandbox({ SANDBOX_PORT_BASE: String(base), DATA_DIR: join(dir, 'data') });
  t.after(() => sandbox.stop());
  const standInUrl = `http://127.0.0.1:${base + standInOffset}`;

  const port = await freePort();
  const server = spawn(process.execPath, [...npmStartNodeFlags(), '--import', 'tsx', 'src/cli.ts', 'serve'], {
    env: { ...baseEnv, ...sandbox.settings, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: join(dir, 'data') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const serverOut = new Output(server);
  t.after(() => {
    if (server.exitCode === null) server.kill('SIGTERM');
  });
  const token = (await serverOut.waitFor(/prl_[A-Za-z0-9]{40}/, 'the first start token', server))[0];
  await serverOut.waitFor(/Server listening/, 'the server listening', server);

  const block = readmeBlock(name);
  const defaultUrl = `http://127.0.0.1:${DEFAULT_SANDBOX_PORT_BASE + standInOffset}`;
  assert.ok(block.includes(defaultUrl), `the block names the stand-in at its default port (${defaultUrl})`);
  const shell = spawnSync('bash', ['--noprofile', '--norc', '-e', '-c', block.replaceAll(defaultUrl, standInUrl)], {
    env: { ...baseEnv, TOKEN: token, API: `http://localhost:${port}/v1` },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(shell.status, 0, `${shell.stdout}\n${shell.stderr}`);
  return { stdout: shell.stdout, standInUrl, port };
}
