/**
 * The send-worker drain, shared by the send-worker benchmark and the cost-growth benchmark: the
 * service (bench/send-worker/server.ts) on a fresh store writes a backlog of `backlog` queued
 * sends before its worker starts; SMS per second is the number that arrived at the stand-in over
 * the time from the first arrival to the last.
 */
import { loadavg } from 'node:os';
import { createTestDatabase, type Dialect } from '../../test/helpers/databases.js';
import { cpuMs, SERVER_NODE_ARGS, startBenchProcess } from '../shared/process.js';

/** The longest a drain or the tail of a lag run is waited for. */
export const DRAIN_TIMEOUT_MS = 90_000;

const round2 = (n: number) => Math.round(n * 100) / 100;

interface Arrivals {
  count: number;
  distinct: number;
  firstAt: number;
  lastAt: number;
  references?: Record<string, number>;
}

export class StandIn {
  constructor(readonly url: string) {}

  async arrivals(all = false): Promise<Arrivals> {
    return (await (await fetch(`${this.url}/_bench/arrivals${all ? '?all=1' : ''}`)).json()) as Arrivals;
  }

  async reset(): Promise<void> {
    await (await fetch(`${this.url}/_bench/reset`, { method: 'POST' })).body?.cancel();
  }

  /** Waits (bounded) until `n` messages arrived; false when the time ran out. */
  async waitFor(n: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await this.arrivals()).count >= n) return true;
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** `serverEnv` gives the server's environment (the stand-in, its key, BENCH_FINISHED). */
export async function sendDrain(
  dialect: Dialect,
  standIn: StandIn,
  backlog: number,
  serverEnv: (standIn: StandIn, db: { url: string; dataDir: string }) => Record<string, string>,
): Promise<Record<string, unknown>> {
  const loadAverage = round2(loadavg()[0]!);
  const db = await createTestDatabase(dialect);
  await standIn.reset();
  try {
    const server = await startBenchProcess('bench/send-worker/server.ts', { ...serverEnv(standIn, db), BENCH_BACKLOG: String(backlog) }, SERVER_NODE_ARGS);
    const cpuBefore = cpuMs(server.child.pid);
    const complete = await standIn.waitFor(backlog, DRAIN_TIMEOUT_MS);
    const cpuAfter = cpuMs(server.child.pid);
    const a = await standIn.arrivals();
    const closing = await server.stop();
    const seconds = (a.lastAt - a.firstAt) / 1000;
    return {
      backlog: backlog,
      backlogWrittenMs: server.info.backlogMs,
      arrived: a.count,
      distinct: a.distinct,
      complete,
      seconds: round2(seconds),
      perSecond: seconds > 0 ? Math.round(a.count / seconds) : 0,
      serverCpuMsPerSms: cpuBefore !== null && cpuAfter !== null && a.count > 0 ? round2((cpuAfter - cpuBefore) / a.count) : null,
      loadAverage,
      store: closing,
    };
  } finally {
    await db.drop();
  }
}
