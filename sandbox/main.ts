import { join, resolve } from 'node:path';
import type { RunnableStandIn } from '../src/channel-types/module.js';
import { STAND_INS } from './registry.js';
import { SandboxStateFile } from './shared/state-file.js';

// `npm run sandbox`: every built stand-in on fixed ports from 127.0.0.1:9101 upward
// (SANDBOX_PORT_BASE moves the range), until SIGINT/SIGTERM. Accounts and credentials are kept
// in $DATA_DIR/sandbox/state.json (default ./data/sandbox/state.json) across restarts.

const HOST = '127.0.0.1';
const DEFAULT_PORT_BASE = 9101;
const LAST_OFFSET = Math.max(...STAND_INS.map((e) => e.portOffset));

function portBase(): number {
  const raw = process.env.SANDBOX_PORT_BASE;
  if (raw === undefined || raw === '') return DEFAULT_PORT_BASE;
  const n = Number(raw);
  if (!/^[0-9]+$/.test(raw) || n < 1 || n + LAST_OFFSET > 65535) {
    throw new Error(`SANDBOX_PORT_BASE must be a port number from 1 to ${65535 - LAST_OFFSET}, got ${raw}`);
  }
  return n;
}

function stateFilePath(): string {
  const dataDir = process.env.DATA_DIR === undefined || process.env.DATA_DIR === '' ? './data' : process.env.DATA_DIR;
  return join(resolve(dataDir), 'sandbox', 'state.json');
}

/**
 * The lines to give the server so it talks to these stand-ins and accepts their calls; SANDBOX_URL
 * (where the stand-ins start) turns on the administration app's local trial.
 */
function serverSettings(base: number, made: RunnableStandIn[]): string[] {
  const env: Record<string, string> = {};
  if (base !== DEFAULT_PORT_BASE) env.SANDBOX_PORT_BASE = String(base);
  env.SANDBOX_URL = `http://${HOST}:${base}`;
  for (const m of made) Object.assign(env, m.serverEnv?.());
  env.SOCIALNET_VERIFY_TOKEN = 'any-local-string';
  return Object.entries(env).map(([k, v]) => `  export ${k}=${v}`);
}

async function main(): Promise<void> {
  const base = portBase();
  const made = STAND_INS.map((entry) => ({ entry, ...entry.create() }));
  const file = new SandboxStateFile(
    stateFilePath(),
    made.map((m) => ({ platform: m.entry.platform, standIn: m.standIn })),
  );
  const restored = file.restore();
  file.watch();

  const listening: typeof made = [];
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping ${listening.length} stand-in(s)`);
    file.flush();
    await Promise.allSettled(listening.map((m) => m.standIn.close()));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  for (const m of made) {
    const { platform, portOffset } = m.entry;
    try {
      const url = await m.standIn.listen(base + portOffset, HOST);
      listening.push(m);
      console.log(`${platform.padEnd(26)} ${url}   control API: ${url}/_sandbox   docs: sandbox/${platform}/README.md`);
    } catch (err) {
      console.error(`${platform}: could not listen on ${HOST}:${base + portOffset}: ${err instanceof Error ? err.message : String(err)}`);
      await Promise.allSettled(listening.map((l) => l.standIn.close()));
      process.exit(1);
    }
  }
  // First run: the new random credentials are written at once, so even a killed sandbox keeps them.
  file.save();
  console.log(`\nAccounts ${restored.length > 0 ? 'restored from' : 'kept in'} ${file.path} (delete it for new ones).`);
  console.log('Server settings for these stand-ins: paste these lines into the terminal where you start the server, then start it there.');
  for (const line of serverSettings(base, made)) console.log(line);
  // A stand-in whose URL is no server setting (it is given per channel through the API).
  for (const m of made) if (m.entry.urlUse !== undefined) console.log(`${m.entry.platform}: give ${m.standIn.baseUrl() ?? ''} as ${m.entry.urlUse}.`);
  console.log('Press Ctrl+C to stop.');
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
