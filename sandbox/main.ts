import { STAND_INS } from './registry.js';
import type { StandIn } from './shared/standin.js';

// `npm run sandbox`: every built stand-in on fixed ports from 127.0.0.1:9101 upward
// (SANDBOX_PORT_BASE moves the range), until SIGINT/SIGTERM.

const HOST = '127.0.0.1';

function portBase(): number {
  const raw = process.env.SANDBOX_PORT_BASE;
  if (raw === undefined || raw === '') return 9101;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65000) throw new Error(`SANDBOX_PORT_BASE must be a port number, got ${raw}`);
  return n;
}

async function main(): Promise<void> {
  const base = portBase();
  const running: Array<{ platform: string; standIn: StandIn<unknown> }> = [];
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping ${running.length} stand-in(s)`);
    await Promise.allSettled(running.map((r) => r.standIn.close()));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  for (const entry of STAND_INS) {
    const standIn = entry.create();
    try {
      const url = await standIn.listen(base + entry.portOffset, HOST);
      running.push({ platform: entry.platform, standIn });
      console.log(`${entry.platform.padEnd(26)} ${url}   control API: ${url}/_sandbox   docs: sandbox/${entry.platform}/README.md`);
    } catch (err) {
      console.error(`${entry.platform}: could not listen on ${HOST}:${base + entry.portOffset}: ${err instanceof Error ? err.message : String(err)}`);
      await Promise.allSettled(running.map((r) => r.standIn.close()));
      process.exit(1);
    }
  }
  console.log('Press Ctrl+C to stop.');
}

void main();
