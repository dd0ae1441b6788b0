/**
 * NLP on received text benchmark (`npm run bench -- nlp`): what the built-in engine adds to a
 * received message. For each store (SQLite, and PostgreSQL when reachable) the service runs in its
 * own process (bench/nlp/server.ts: two botmsg channels, A with a trained built-in integration, B
 * without); this process holds the webhook receiver and posts botmsg updates to the channels'
 * inbound URLs, open loop at a fixed rate: first to B (the baseline), then to A. Added latency is
 * A minus B, and each of A's figures is also shown as a ratio to B's (bench/nlp/docs.ts), for the
 * callback's answer, the event's arrival and the server's CPU per message.
 *
 * Short and bounded; writes bench/results/nlp.json and the "NLP on received text" section of
 * docs/benchmarks.md. Options: see USAGE (--help).
 */
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { createTestDatabase, type Dialect } from '../../test/helpers/databases.js';
import { EventReceiver } from './receiver.js';
import { BotmsgLoad, type ChannelTarget, type LatencySummary } from './load.js';
import { HELD_OUT, MODEL_SIZE, type HeldOutPhrase } from './model.js';
import { docsSection } from './docs.js';
import {
  benchStores,
  cpuMs,
  earlierNotes,
  machineFacts,
  PRODUCTION_NODE_FLAGS,
  SERVER_NODE_ARGS,
  startBenchProcess,
  writeDocsSection,
} from '../shared/process.js';

const USAGE = `npm run bench -- nlp [options]
  --rate R        updates per second offered to each channel (200)
  --seconds S     measured seconds per channel (10)
  --warmup S      warm-up seconds per channel (2)
  --only sqlite|postgres
  --no-docs       write bench/results/nlp.json only
  --docs-only     rewrite the docs section from bench/results/nlp.json without measuring
BENCH_SERVER_NODE_ARGS passes flags to the service's process (e.g. "--cpu-prof --cpu-prof-dir=.tmp/prof").`;

const { values: args } = parseArgs({
  options: {
    rate: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    only: { type: 'string' },
    'no-docs': { type: 'boolean', default: false },
    'docs-only': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const WARMUP_SECONDS = Number(args.warmup);
const RESULTS = 'bench/results/nlp.json';

const round2 = (n: number) => Math.round(n * 100) / 100;

interface ServerInfo {
  port: number;
  secretHeader: string;
  trainingMs: number;
  timeBudgetMs: number;
  channels: { a: Omit<ChannelTarget, 'name'>; b: Omit<ChannelTarget, 'name'> };
}

/** The held-out phrases in a fixed shuffled order (a small seeded generator: every run sends the same sequence). */
function shuffled(phrases: readonly HeldOutPhrase[]): HeldOutPhrase[] {
  const out = [...phrases];
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const PHRASES = shuffled(HELD_OUT);
/** The bot's users; message n comes from user n mod USERS. */
const USERS = 100;

async function measure(dialect: Dialect): Promise<Record<string, unknown>> {
  const loadAverage = round2(loadavg()[0]!);
  const receiver = new EventReceiver();
  const receiverUrl = await receiver.start();
  const db = await createTestDatabase(dialect);
  /** The service's process until it was stopped: a run that failed midway ends it. */
  let running: ChildProcess | undefined;
  try {
    const server = await startBenchProcess<ServerInfo>(
      'bench/nlp/server.ts',
      { BENCH_DATABASE_URL: db.url, BENCH_DATA_DIR: db.dataDir, BENCH_RECEIVER_URL: receiverUrl },
      [...PRODUCTION_NODE_FLAGS, ...SERVER_NODE_ARGS],
    );
    running = server.child;
    const { info } = server;
    const pool = new Pool(`http://127.0.0.1:${info.port}`, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
    const load = new BotmsgLoad(pool, info.secretHeader, receiver);
    const a: ChannelTarget = { name: 'a', ...info.channels.a };
    const b: ChannelTarget = { name: 'b', ...info.channels.b };
    // Each channel's users, their contacts made before the load (channel A's /start messages also load the model).
    const users = Array.from({ length: USERS }, (_, i) => 5_000_001 + i);
    await load.prime(b, users);
    await load.prime(a, users);
    const options = { rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, users, phrases: PHRASES, serverCpuMs: () => cpuMs(server.child.pid) };
    const phase = async (target: ChannelTarget) => {
      const startLoad = round2(loadavg()[0]!);
      process.stderr.write(`${dialect}: channel ${target.name} at ${RATE}/s for ${WARMUP_SECONDS} + ${SECONDS} s...\n`);
      const r = await load.phase(target, options);
      process.stderr.write(`${dialect}: ${JSON.stringify(r)}\n`);
      return { ...r, loadAverage: startLoad };
    };
    const baseline = await phase(b);
    const builtin = await phase(a);
    await pool.close();
    const closing = await server.stop();
    running = undefined;
    const diff = (x: LatencySummary, y: LatencySummary) => ({ p50: round2(x.p50 - y.p50), p99: round2(x.p99 - y.p99) });
    return {
      loadAverage,
      trainingMs: info.trainingMs,
      timeBudgetMs: info.timeBudgetMs,
      baseline,
      builtin,
      addedMs: {
        callback: diff(builtin.callbackMs, baseline.callbackMs),
        endToEnd: diff(builtin.endToEndMs, baseline.endToEndMs),
        serverCpuPerMessage:
          builtin.serverCpuMsPerMessage === null || baseline.serverCpuMsPerMessage === null
            ? null
            : round2(builtin.serverCpuMsPerMessage - baseline.serverCpuMsPerMessage),
      },
      duplicates: receiver.duplicates,
      server: closing,
    };
  } finally {
    if (running && running.exitCode === null) running.kill('SIGKILL');
    await receiver.close();
    await db.drop();
  }
}

if (args['docs-only']) {
  writeDocsSection('nlp', docsSection(JSON.parse(readFileSync(RESULTS, 'utf8')) as Record<string, any>));
  process.exit(0);
}

const stores = await benchStores();
const results: Record<string, any> = {
  date: new Date().toISOString().slice(0, 10),
  machine: machineFacts(),
  settings: {
    rate: RATE,
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    users: USERS,
    /** The service's NLP_TIME_BUDGET_MS, as its process read it. */
    timeBudgetMs: null,
    model: MODEL_SIZE,
  },
  stores: {},
  // Notes on the figures are written by hand and kept from the earlier results file.
  notes: earlierNotes(RESULTS),
};
for (const dialect of stores) {
  if (args.only && args.only !== dialect) continue;
  try {
    results.stores[dialect] = await measure(dialect);
    results.settings.timeBudgetMs ??= results.stores[dialect].timeBudgetMs;
  } catch (error) {
    results.stores[dialect] = { error: error instanceof Error ? error.message : String(error) };
    process.stderr.write(`${dialect}: ${results.stores[dialect].error}\n`);
  }
}
mkdirSync('bench/results', { recursive: true });
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
if (!args['no-docs'] && !args.only) writeDocsSection('nlp', docsSection(results));
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
