/**
 * Send worker benchmark (`npm run bench -- send-worker`). Three processes on 127.0.0.1: the
 * service with one send worker (bench/send-worker/server.ts), the smsprovider stand-in
 * (bench/send-worker/standin.ts), and this one, which drives the load and reads the results.
 * For each store (SQLite, and PostgreSQL when reachable):
 *
 *  0. The drain's limit: the stand-in alone (bench/send-worker/standin-alone.ts), the same calls
 *     straight from this process, 32 at once, just before the drain; the drain is reported as a
 *     ratio to it.
 *  1. Drain rate: a backlog of queued mobile sends (a production channel on the stand-in, the
 *     throttle off) is written before the worker starts; SMS per second is the number that
 *     arrived at the stand-in over the time from the first arrival to the last.
 *  2. The lag's limit: the stand-in alone at the lag's rate, open loop, just before the lag run.
 *  3. Lag: Send Message at a fixed offered rate (500/s, open loop); the lag of a message is its
 *     arrival at the stand-in minus its `sent` time (taken when the request is handled, just
 *     before the commit), so it covers the commit, waking the worker, the claim, reading the
 *     message and the provider call.
 *
 * Short and bounded; writes bench/results/send-worker.json and the "Send worker" section of
 * docs/benchmarks.md (bench/send-worker/docs.ts).
 */
import { loadavg } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { createTestDatabase, type Dialect } from '../../test/helpers/databases.js';
import { sendDrain, StandIn } from './drain.js';
import { docsSection, TARGETS } from './docs.js';
import { standInAtRate, standInDrain } from './standin-alone.js';
import { openLoop } from '../shared/open-loop.js';
import { benchStores, earlierNotes, machineFacts, percentile, SERVER_NODE_ARGS, startBenchProcess, writeDocsSection } from '../shared/process.js';

const USAGE = `npm run bench -- send-worker [options]
  --backlog N         queued sends drained per store (20000)
  --rate R            Send Message per second in the lag run (500)
  --seconds S         the lag run's measured seconds (5)
  --warmup S          the lag run's warm-up seconds (1)
  --standin-calls N   calls to the stand-in alone before each drain (default: the backlog)
  --only sqlite|postgres
  --no-docs           write bench/results/send-worker.json only
  --docs-only         rewrite the docs section from bench/results/send-worker.json without measuring
BENCH_SERVER_NODE_ARGS passes flags to the service's process (e.g. "--cpu-prof --cpu-prof-dir=.tmp/prof").`;

const { values: args } = parseArgs({
  options: {
    backlog: { type: 'string', default: '20000' },
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    only: { type: 'string' },
    'standin-calls': { type: 'string' },
    'no-docs': { type: 'boolean', default: false },
    'docs-only': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const BACKLOG = Number(args.backlog);
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const WARMUP_SECONDS = Number(args.warmup);
const STANDIN_CALLS = Number(args['standin-calls'] ?? BACKLOG);

const SMS_KEY = `live_bench${randomBytes(8).toString('hex')}`;

const round2 = (n: number) => Math.round(n * 100) / 100;

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
    const total = RATE * (SECONDS + WARMUP_SECONDS);
    const offeredSeconds = await openLoop(RATE, total, send);
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

const RESULTS = 'bench/results/send-worker.json';
if (args['docs-only']) {
  writeDocsSection('send-worker', docsSection(JSON.parse(readFileSync(RESULTS, 'utf8')) as Record<string, any>));
  process.exit(0);
}

const stores = await benchStores();
const results: Record<string, any> = {
  date: new Date().toISOString().slice(0, 10),
  machine: machineFacts(),
  settings: { backlog: BACKLOG, rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, standInCalls: STANDIN_CALLS },
  targets: TARGETS,
  stores: {},
  // Notes on the figures are written by hand and kept from the earlier results file.
  notes: earlierNotes(RESULTS),
};

const standInProcess = await startBenchProcess('bench/send-worker/standin.ts', { BENCH_SMS_KEY: SMS_KEY });
const standIn = new StandIn(String(standInProcess.info.url));
try {
  const measured = async (what: string, work: () => Promise<Record<string, unknown>>) => {
    process.stderr.write(`${what}...\n`);
    let r: Record<string, unknown>;
    try {
      r = await work();
    } catch (error) {
      r = { error: error instanceof Error ? error.message : String(error) };
    }
    process.stderr.write(`${what}: ${JSON.stringify(r)}\n`);
    return r;
  };
  for (const dialect of stores) {
    if (args.only && args.only !== dialect) continue;
    const standInAlone =
      STANDIN_CALLS > 0 ? await measured(`${dialect}: stand-in alone (${STANDIN_CALLS} calls)`, () => standInDrain(standIn, SMS_KEY, STANDIN_CALLS)) : null;
    const d = await measured(`${dialect}: drain (${BACKLOG} queued sends)`, () => drain(dialect, standIn));
    const standInLag = await measured(`${dialect}: stand-in alone at ${RATE}/s for ${SECONDS} s`, () =>
      standInAtRate(standIn, SMS_KEY, RATE, SECONDS, WARMUP_SECONDS),
    );
    const l = await measured(`${dialect}: lag at ${RATE}/s for ${SECONDS} s`, () => lag(dialect, standIn));
    results.stores[dialect] = { standInAlone, drain: d, standInAtRate: standInLag, lag: l };
  }
} finally {
  await standInProcess.stop();
}
mkdirSync('bench/results', { recursive: true });
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
if (!args['no-docs'] && !args.only) writeDocsSection('send-worker', docsSection(results));
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
