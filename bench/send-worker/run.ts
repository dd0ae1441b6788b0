/**
 * Send worker benchmark (`npm run bench -- send-worker`). Three processes on 127.0.0.1: the
 * service with one send worker (bench/send-worker/server.ts), the smsprovider stand-in
 * (bench/send-worker/standin.ts), and this one, which drives the load and reads the results.
 * For each store (SQLite, and PostgreSQL when reachable):
 *
 *  1. Drain rate: a backlog of queued mobile sends (a production channel on the stand-in, the
 *     throttle off) is written before the worker starts; SMS per second is the number that
 *     arrived at the stand-in over the time from the first arrival to the last.
 *  2. Lag: Send Message at a fixed offered rate (500/s, open loop); the lag of a message is its
 *     arrival at the stand-in minus its `sent` time (taken when the request is handled, just
 *     before the commit), so it covers the commit, waking the worker, the claim, reading the
 *     message and the provider call.
 *
 * First, the stand-in alone is measured (the same calls straight from this process), to show
 * it is not what limits the drain rate. Short and bounded; writes
 * bench/results/send-worker.json and the "Send worker" section of docs/benchmarks.md.
 * Options: --only sqlite|postgres, --backlog N, --rate R, --seconds S, --warmup S,
 * --no-docs, --docs-only. BENCH_SERVER_NODE_ARGS passes flags to the service's process
 * (e.g. "--cpu-prof --cpu-prof-dir=.tmp/prof").
 */
import { loadavg } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { createTestDatabase, type Dialect } from '../../test/helpers/databases.js';
import { sendDrain, StandIn } from './drain.js';
import { benchStores, earlierNotes, machineFacts, percentile, SERVER_NODE_ARGS, startBenchProcess, writeDocsSection } from '../shared/process.js';

const { values: args } = parseArgs({
  options: {
    backlog: { type: 'string', default: '20000' },
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    only: { type: 'string' },
    /** Calls made straight to the stand-in to measure it alone (0: skip). */
    'standin-calls': { type: 'string', default: '10000' },
    'no-docs': { type: 'boolean', default: false },
    /** Rewrites the docs section from bench/results/send-worker.json without measuring. */
    'docs-only': { type: 'boolean', default: false },
  },
});
const BACKLOG = Number(args.backlog);
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const WARMUP_SECONDS = Number(args.warmup);
const TARGETS = { drainPerSecond: 2000, p99LagMs: 200 };

const SMS_KEY = `live_bench${randomBytes(8).toString('hex')}`;

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The stand-in alone: the connector's call (a JSON POST /messages with a reference), `calls` times, 32 at once. */
async function standInAlone(standIn: StandIn, calls: number): Promise<Record<string, unknown>> {
  await standIn.reset();
  const pool = new Pool(standIn.url, { connections: 32, pipelining: 1 });
  const headers = { 'content-type': 'application/json', authorization: `AccessKey ${SMS_KEY}` };
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < calls) {
        const n = next++;
        const body = JSON.stringify({
          originator: 'Parley',
          recipients: [`42060${String(1_000_000 + (n % 1000))}`],
          body: `Your code is ${String(100_000 + n)}.`,
          reference: String(n + 1),
          datacoding: 'auto',
          reportUrl: 'http://127.0.0.1/v1/inbound/1/status',
        });
        const res = await pool.request({ path: '/messages', method: 'POST', headers, body });
        await res.body.dump();
        if (res.statusCode !== 201) failures += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  await standIn.reset();
  return { calls, failures, seconds: round2(seconds), perSecond: Math.round(calls / seconds) };
}

const serverEnv = (standIn: StandIn, db: { url: string; dataDir: string }): Record<string, string> => ({
  BENCH_DATABASE_URL: db.url,
  BENCH_DATA_DIR: db.dataDir,
  SMSPROVIDER_API_URL: standIn.url,
  BENCH_SMS_KEY: SMS_KEY,
});

function drain(dialect: Dialect, standIn: StandIn): Promise<Record<string, unknown>> {
  return sendDrain(dialect, standIn, BACKLOG, serverEnv);
}

async function lag(dialect: Dialect, standIn: StandIn): Promise<Record<string, unknown>> {
  const loadAverage = round2(loadavg()[0]!);
  const db = await createTestDatabase(dialect);
  await standIn.reset();
  try {
    const server = await startBenchProcess('bench/send-worker/server.ts', { ...serverEnv(standIn, db), BENCH_BACKLOG: '0' }, SERVER_NODE_ARGS);
    const pool = new Pool(`http://127.0.0.1:${String(server.info.port)}`, { connections: 32, pipelining: 1, keepAliveTimeout: 30_000 });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${String(server.info.token)}` };
    const channelId = String(server.info.channelId);
    const statuses: Record<string, number> = {};
    /** The message's `sent` time by its id, for the messages sent after the warm-up. */
    const sentAt = new Map<string, number>();
    let accepted = 0;
    const measureFrom = Date.now() + WARMUP_SECONDS * 1000;
    const send = async (n: number) => {
      const body = JSON.stringify({
        channel: { id: channelId },
        contact: { phone_number: `+42060${String(1_000_000 + (n % 1000))}` },
        content: { type: 'text', payload: `Your code is ${String(100_000 + n)}.` },
      });
      try {
        const res = await pool.request({ path: '/v1/messages', method: 'POST', headers, body });
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode !== 201) {
          await res.body.dump();
          return;
        }
        accepted += 1;
        const message = (await res.body.json()) as { id: string; sent: string };
        const at = Date.parse(message.sent);
        if (at >= measureFrom) sentAt.set(message.id, at);
      } catch {
        statuses.error = (statuses.error ?? 0) + 1;
      }
    };
    // Open loop: requests leave on a fixed schedule whatever the answers' latency.
    const total = RATE * (SECONDS + WARMUP_SECONDS);
    const started = performance.now();
    const inflight = new Set<Promise<void>>();
    for (let n = 0; n < total; n++) {
      const due = started + (n * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const p = send(n).finally(() => inflight.delete(p));
      inflight.add(p);
    }
    const offeredSeconds = (performance.now() - started) / 1000;
    await Promise.all(inflight);
    const complete = await standIn.waitFor(accepted, 30_000);
    await pool.close();
    const a = await standIn.arrivals(true);
    const closing = await server.stop();
    const lags: number[] = [];
    let missing = 0;
    for (const [id, at] of sentAt) {
      const arrived = a.references?.[id];
      if (arrived === undefined) missing += 1;
      else lags.push(arrived - at);
    }
    lags.sort((x, y) => x - y);
    return {
      offeredRate: RATE,
      achievedRate: Math.round(total / offeredSeconds),
      sent: total,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      statuses,
      accepted,
      arrived: a.count,
      distinct: a.distinct,
      complete,
      measured: lags.length,
      missing,
      lagMs: { p50: percentile(lags, 50), p95: percentile(lags, 95), p99: percentile(lags, 99), max: lags.at(-1) ?? 0 },
      loadAverage,
      store: closing,
    };
  } finally {
    await db.drop();
  }
}

function docsSection(results: Record<string, any>): string {
  const name = (d: string) => (d === 'sqlite' ? 'SQLite' : 'PostgreSQL');
  const rows = (['sqlite', 'postgres'] as const).filter((d) => results.stores[d]);
  const drainRows = rows.map((d) => {
    const r = results.stores[d].drain;
    if (r.error) return `| ${name(d)} | ${r.error} | | | | | |`;
    const arrived = r.arrived === r.backlog && r.distinct === r.backlog ? 'all, once each' : `${r.distinct} of ${r.backlog} (${r.arrived} calls)`;
    return `| ${name(d)} | ${r.backlog} | ${r.seconds} s | **${r.perSecond}** | ${arrived} | ${r.serverCpuMsPerSms ?? '?'} ms | ${r.loadAverage} |`;
  });
  const lagRows = rows.map((d) => {
    const r = results.stores[d].lag;
    if (r.error) return `| ${name(d)} | ${r.error} | | | | | | | |`;
    return `| ${name(d)} | ${r.offeredRate}/s | ${r.accepted} of ${r.sent} | ${r.distinct} | ${r.lagMs.p50} ms | ${r.lagMs.p95} ms | **${r.lagMs.p99} ms** | ${r.lagMs.max} ms | ${r.loadAverage} |`;
  });
  const checks: string[] = [];
  for (const d of rows) {
    const r = results.stores[d];
    if (!r.drain.error)
      checks.push(
        `- ${r.drain.perSecond >= TARGETS.drainPerSecond ? 'pass' : 'FAIL'}: ${name(d)} at least ${TARGETS.drainPerSecond} SMS/s drained with one worker process (${r.drain.perSecond}/s)`,
      );
    if (!r.lag.error)
      checks.push(
        `- ${r.lag.lagMs.p99 <= TARGETS.p99LagMs ? 'pass' : 'FAIL'}: ${name(d)} p99 lag at most ${TARGETS.p99LagMs} ms at ${r.lag.offeredRate} sends/s (${r.lag.lagMs.p99} ms)`,
      );
    const once =
      !r.drain.error && !r.lag.error && r.drain.distinct === r.drain.backlog && r.drain.arrived === r.drain.backlog && r.lag.arrived === r.lag.accepted;
    checks.push(`- ${once ? 'pass' : 'FAIL'}: ${name(d)} every queued message at the stand-in exactly once`);
  }
  const alone = results.standInAlone;
  return [
    '## Send worker',
    '',
    `\`npm run bench -- send-worker\` (bench/send-worker/) — measured ${results.date} on ${results.machine.cpus} cores (${results.machine.cpuModel}), Node ${results.machine.node}.`,
    'Three processes on 127.0.0.1: the service (API and one send worker: 32 jobs at once, default settings), the',
    'smsprovider stand-in (sandbox/smsprovider, in a process of its own), and the load, which also reads the results.',
    "The channel is a production `mobile` channel with the stand-in's live key; each send job reads its message,",
    'calls `POST /messages` at the stand-in (JSON, our message id as `reference`) and marks the message sent. The',
    "throttle is off for the run: the benchmark's service process takes the mobile type's rate (30 SMS/s per",
    'channel) out of its definition before anything is queued, so the send jobs carry no rate.',
    '',
    alone
      ? `**The stand-in alone** took ${alone.calls} such calls straight from the load process, 32 at once, at **${alone.perSecond}/s** (${alone.failures} refused): above the target, so it is not what limits the drain.`
      : '',
    '',
    `**Drain.** A backlog of ${results.settings.backlog} queued sends (1000 contacts) is written through Send Message before the worker`,
    'starts; the rate is the number of SMS the stand-in took over the time from the first arrival to the last. Server',
    "CPU is the service process's CPU time over the drain per SMS (one core's worth is 1000 ms per second).",
    '',
    '| Store | Backlog | Time | SMS/s | Arrived | Server CPU per SMS | Load average at start |',
    '|---|---|---|---|---|---|---|',
    ...drainRows,
    '',
    `**Lag.** Send Message (text, the same channel) at a fixed offered rate, open loop, for ${results.settings.seconds} s after a`,
    `${results.settings.warmupSeconds} s warm-up. The lag of a message is its arrival at the stand-in minus its \`sent\` time, which is set`,
    'when the request is handled, just before the commit: it covers the commit, waking the worker, the claim,',
    'reading the message and the provider call.',
    '',
    '| Store | Offered rate | Sends answered 201 | Arrived | p50 | p95 | p99 | max | Load average at start |',
    '|---|---|---|---|---|---|---|---|---|',
    ...lagRows,
    '',
    `Targets on this 2-core machine: at least ${TARGETS.drainPerSecond} SMS/s drained on each store with one worker process; p99 lag at most`,
    `${TARGETS.p99LagMs} ms at 500 sends/s.`,
    '',
    ...checks,
    '',
    ...(results.notes ?? []),
    ...(results.notes?.length ? [''] : []),
    'Raw figures: `bench/results/send-worker.json`. The machine is shared: a load average above 1 means other work',
    'ran during the measurement, which lowers every figure.',
    '',
  ].join('\n');
}

const RESULTS = 'bench/results/send-worker.json';
if (args['docs-only']) {
  writeDocsSection('send-worker', docsSection(JSON.parse(readFileSync(RESULTS, 'utf8')) as Record<string, any>));
  process.exit(0);
}

const stores = await benchStores();
const results: Record<string, any> = {
  date: new Date().toISOString().slice(0, 10),
  machine: machineFacts(),
  settings: { backlog: BACKLOG, rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS },
  targets: TARGETS,
  standInAlone: null,
  stores: {},
  // Notes on the figures are written by hand and kept from the earlier results file.
  notes: earlierNotes(RESULTS),
};

const standInProcess = await startBenchProcess('bench/send-worker/standin.ts', { BENCH_SMS_KEY: SMS_KEY });
const standIn = new StandIn(String(standInProcess.info.url));
try {
  const calls = Number(args['standin-calls']);
  if (calls > 0) {
    process.stderr.write(`stand-in alone: ${calls} calls...\n`);
    results.standInAlone = await standInAlone(standIn, calls);
    process.stderr.write(`stand-in alone: ${JSON.stringify(results.standInAlone)}\n`);
  }
  const measured = async (work: () => Promise<Record<string, unknown>>) => {
    try {
      return await work();
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };
  for (const dialect of stores) {
    if (args.only && args.only !== dialect) continue;
    process.stderr.write(`${dialect}: drain (${BACKLOG} queued sends)...\n`);
    const d = await measured(() => drain(dialect, standIn));
    process.stderr.write(`${dialect}: ${JSON.stringify(d)}\n${dialect}: lag at ${RATE}/s for ${SECONDS} s...\n`);
    const l = await measured(() => lag(dialect, standIn));
    process.stderr.write(`${dialect}: ${JSON.stringify(l)}\n`);
    results.stores[dialect] = { drain: d, lag: l };
  }
} finally {
  await standInProcess.stop();
}
mkdirSync('bench/results', { recursive: true });
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
if (!args['no-docs'] && !args.only) writeDocsSection('send-worker', docsSection(results));
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
