import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { STAND_INS } from '../../../sandbox/registry.js';
import { entryArgs } from '../../helpers/entry-points.js';

// `npm run sandbox` as a separate process (sandbox/main.ts), on ports chosen for the test.

export interface SandboxProcess {
  output(): string;
  /** The `export NAME=value` lines it printed for the server. */
  settings: Record<string, string>;
  /** SIGTERM; answers the exit code. */
  stop(): Promise<number | null>;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A base port whose whole range of stand-in ports was free a moment ago. */
export async function freePortBase(): Promise<number> {
  const span = Math.max(...STAND_INS.map((e) => e.portOffset)) + 1;
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    let free = true;
    for (let i = 0; i < span && free; i++) free = await portFree(base + i);
    if (free) return base;
  }
  throw new Error('no free range of ports for the stand-ins');
}

export async function startSandbox(env: Record<string, string>): Promise<SandboxProcess> {
  const child = spawn(process.execPath, entryArgs('sandbox'), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (!out.includes('Press Ctrl+C to stop.')) {
    if (child.exitCode !== null) throw new Error(`the sandbox exited early: ${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the sandbox did not start: ${out}`);
    }
    await sleep(50);
  }
  const settings: Record<string, string> = {};
  for (const m of out.matchAll(/^ {2}export ([A-Z_]+)=(.*)$/gm)) settings[m[1]!] = m[2]!;
  return {
    output: () => out,
    settings,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
