/**
 * Send Message benchmark: `npm run bench -- send [--duration S] [--slice S] [--warmup S] [--rounds N] [--stores sqlite,postgres]`.
 *
 * Each run starts a bare Fastify endpoint with the same body validation (the baseline) and Parley
 * on one store, and loads them with 50 connections from a second process (load.ts) in alternating
 * slices (2 s by default): both are measured under the same conditions of a machine whose speed drifts.
 * Writes bench/results/send.json and the "Send Message" section of docs/benchmarks.md, and
 * checks the targets (SQLite >= 0.6 of the baseline, PostgreSQL >= 0.4, p99 <= 20 ms and <= twice the
 * baseline's p99, RSS <= 250 MB, and every 201 in the store afterwards). Then, each against the
 * baseline in the same way, a reference run of the service with its write replaced by a no-op (the
 * ceiling of the request path apart from the store; `--skip-ceiling` leaves it out), and once more
 * as `npm start` runs the service (default logging).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { closeSync, mkdtempSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { bundleServer } from '../shared/bundle.js';
import type { LoadTarget, SlicedResult, SlicedSpec, SlicedTargetResult } from './load.js';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = join(ROOT, 'bench/send');
const TARGETS = { sqliteRatio: 0.6, postgresRatio: 0.4, p99Ms: 20, p99ToBaseline: 2, rssMb: 250 };

const { values: args } = parseArgs({
  options: {
    /** Measured seconds per server, in slices of `slice` seconds taken in turns with the baseline. */
    duration: { type: 'string', default: '8' },
    slice: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    'pg-url': { type: 'string', default: process.env.PG_BENCH_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    'no-write': { type: 'boolean', default: false },
    'docs-only': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
    /** Leaves out the run of the service as `npm start` runs it (default logging). */
    'skip-start': { type: 'boolean', default: false },
    /** Leaves out the reference run with the store's write replaced by a no-op (server.ts). */
    'skip-ceiling': { type: 'boolean', default: false },
    /** Leaves out each store's reference run with a webhook on the channel (its event and delivery written too). */
    'skip-webhook': { type: 'boolean', default: false },
    /** Writes a CPU profile of each server process (the baseline's too) into this folder. */
    profile: { type: 'string' },
  },
});
const durationMs = Math.min(Number(args.duration), 30) * 1000;
const warmupMs = Math.min(Number(args.warmup), 10) * 1000;
const connections = Number(args.connections);
const sliceMs = Math.min(Math.max(Number(args.slice), 0.25), durationMs / 1000) * 1000;
/** The pause after each slice: what a server defers past its load ends before the next is measured. */
const SLICE_PAUSE_MS = 300;

interface Started {
  child: ChildProcess;
  lines: AsyncIterator<string>;
  ready: Record<string, unknown>;
}

/** The Node flags `npm start` and `parley serve` run with; the baseline gets them as well. */
const SERVER_NODE_FLAGS = ['--max-semi-space-size=32'];

async function start(script: string, env: Record<string, string> = {}): Promise<Started> {
  const profile = args.profile !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${resolve(args.profile)}`] : [];
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...profile, await bundleServer(`bench/send/${script}`)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error(`${script} exited before it was ready`);
  return { child, lines, ready: JSON.parse(first.value) as Record<string, unknown> };
}

/** Peak resident memory of a process (Linux), in MB. */
function peakRssMb(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

function load(spec: SlicedSpec): Promise<SlicedResult> {
  return new Promise((resolveLoad, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'load.ts'), JSON.stringify(spec)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('exit', (code) => (code === 0 ? resolveLoad(JSON.parse(out) as SlicedResult) : reject(new Error(`load generator exited with ${code}`))));
  });
}

async function stop(started: Started): Promise<Record<string, unknown> | null> {
  const exited = new Promise<void>((r) => started.child.once('exit', () => r()));
  started.child.kill('SIGTERM');
  const next = await Promise.race([started.lines.next(), exited.then(() => ({ done: true, value: undefined }))]);
  await exited;
  return next.done || !next.value ? null : (JSON.parse(next.value) as Record<string, unknown>);
}

function bodies(channelId: string): string[] {
  // 100 contacts: the first messages create them, the rest find them.
  return Array.from({ length: 100 }, (_, i) =>
    JSON.stringify({
      channel: { id: channelId },
      contact: { phone_number: `+4206011${String(i).padStart(5, '0')}` },
      content: { type: 'text', payload: `Hello from the benchmark, message for contact ${i}.` },
    }),
  );
}

interface Measured extends SlicedTargetResult {
  rssMb: number | null;
  stored?: number;
}

/** A server under measurement: where to send, its process, and how to end it (what it stored). */
interface Target {
  pid: number;
  load: LoadTarget;
  /** Stops the server and removes what it made; answers the messages it stored, if it counts them. */
  stop(): Promise<number | undefined>;
  /** Extra figures read after the load, before the stop. */
  after?(requests: number): Record<string, number>;
}

/** A bench server script (baseline.ts, server.ts) started with `env`; `cleanup` runs after it stops. */
async function scriptTarget(script: string, env: Record<string, string>, cleanup: () => Promise<void> = async () => {}): Promise<Target> {
  const server = await start(script, env).catch(async (error: unknown) => {
    await cleanup();
    throw error;
  });
  const { port, token, channelId } = server.ready as { port: number; token?: string; channelId?: string };
  // Once: a second call (after a failure elsewhere) answers the first one's outcome.
  let stopped: Promise<number | undefined> | null = null;
  const stopOnce = async (): Promise<number | undefined> => {
    try {
      const after = await stop(server);
      return after && typeof after.stored === 'number' ? after.stored : undefined;
    } finally {
      await cleanup();
    }
  };
  return {
    pid: server.child.pid!,
    load: {
      origin: `http://127.0.0.1:${port}`,
      path: '/v1/messages',
      headers: (token ? { authorization: `Bearer ${token}` } : {}) as Record<string, string>,
      bodies: bodies(channelId ?? '1'),
    },
    stop: () => (stopped ??= stopOnce()),
  };
}

const baselineTarget = () => scriptTarget('baseline.ts', {});

/** Parley (server.ts) on a fresh database of `store`, with `env` on top; the database and its folder go at the stop. */
async function parleyTarget(store: string, env: Record<string, string> = {}): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
  const removeDir = async () => rmSync(dataDir, { recursive: true, force: true });
  const given = { ...env, BENCH_DATA_DIR: dataDir };
  if (store === 'sqlite') return scriptTarget('server.ts', { ...given, BENCH_DATABASE_URL: join(dataDir, 'bench.db') }, removeDir);
  if (store === 'postgres') {
    const db = await createPostgresDatabase(args['pg-url']);
    return scriptTarget('server.ts', { ...given, BENCH_DATABASE_URL: db.url }, async () => {
      await db.drop();
      await removeDir();
    });
  }
  await removeDir();
  throw new Error(`unknown store ${store}`);
}

/**
 * The baseline and one Parley server, both started, measured by one load process in alternating
 * slices (load.ts): the ratio compares the two under the same conditions of the machine.
 */
async function compare(makeParley: () => Promise<Target>): Promise<{ baseline: Measured; parley: Measured; ratio: number }> {
  // Dirty pages left by earlier work (a previous run's database) are written out first, so
  // their write-back does not compete with this run.
  execFileSync('sync');
  const targets: Target[] = [];
  try {
    targets.push(await baselineTarget());
    targets.push(await makeParley());
    const measured = await load({
      targets: targets.map((t) => ({ ...t.load, pid: t.pid })),
      connections,
      warmupMs,
      durationMs,
      sliceMs,
      pauseMs: SLICE_PAUSE_MS,
      maxRequests: 2_000_000,
    });
    const [baseline, parley] = await Promise.all(
      targets.map(async (t, i): Promise<Measured> => {
        const m = measured.targets[i]!;
        const rssMb = peakRssMb(t.pid);
        const extra = t.after?.(m.created) ?? {};
        const stored = await t.stop();
        return { ...m, ...extra, rssMb, ...(stored === undefined ? {} : { stored }) };
      }),
    );
    targets.length = 0;
    return { baseline: baseline!, parley: parley!, ratio: parley!.rps / baseline!.rps };
  } finally {
    for (const t of targets) await t.stop().catch(() => undefined);
  }
}

/** A port free on 127.0.0.1 now. */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolvePort(port));
    });
  });
}

interface AsStarted extends Measured {
  /** Lines the server wrote (its log) per request answered, warm-up included. */
  logLinesPerRequest: number;
  logBytesPerRequest: number;
}

/**
 * Parley exactly as `npm start` runs it on the embedded default: the build script, then
 * `node --max-semi-space-size=32 dist/src/cli.js serve` with the default settings (logging at
 * `info`, one JSON line per request, written to a file as an operator's log would be). The
 * account and token come from the CLI, the channel from the API, as a user would make them.
 */
async function asStartedTarget(): Promise<Target> {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const cli = join(ROOT, 'dist/src/cli.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-start-'));
  const port = await freePort();
  // DATA_DIR is the only setting: the store, the key and the files live there, as in a fresh install.
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
  delete env.LOG_LEVEL;
  delete env.DATABASE_URL;
  const logPath = join(dataDir, 'server.log');
  let log: number | null = null;
  let child: ChildProcess | null = null;
  const end = async (): Promise<number | undefined> => {
    try {
      if (!child || child.exitCode !== null) return undefined;
      const exited = new Promise<void>((r) => child!.once('exit', () => r()));
      child.kill('SIGTERM');
      await exited;
      const db = new Database(join(dataDir, 'parley.db'), { readonly: true });
      const stored = (db.prepare('select count(*) as n from messages').get() as { n: number }).n;
      db.close();
      return stored;
    } finally {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      if (log !== null) {
        closeSync(log);
        log = null;
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  try {
    const run = (cliArgs: string[]) =>
      JSON.parse(execFileSync(process.execPath, [cli, ...cliArgs], { cwd: ROOT, env, encoding: 'utf8' })) as Record<string, unknown>;
    const account = run(['account', 'create', '--name', 'bench', '--plan', 'enterprise', '--hourly-limit', '1000000000', '--concurrency', '10000']);
    const token = String(run(['token', 'create', '--account', String(account.id)]).access_token);
    log = openSync(logPath, 'w');
    child = spawn(process.execPath, [...SERVER_NODE_FLAGS, cli, 'serve'], { cwd: ROOT, env, stdio: ['ignore', log, log] });
    const origin = `http://127.0.0.1:${port}`;
    for (let tries = 0; ; tries++) {
      const ready = await fetch(`${origin}/readyz`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ready) break;
      if (tries > 300 || child.exitCode !== null) throw new Error(`parley serve did not become ready (see ${logPath})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const made = await fetch(`${origin}/v1/channels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'mobile',
        name: 'bench',
        mode: 'test',
        provider: { type: 'smsprovider', sender_id: 'Parley', access_token: 'bench', signing_key: 'bench' },
      }),
    });
    if (made.status !== 201) throw new Error(`channel create answered ${made.status}: ${await made.text()}`);
    const channelId = String(((await made.json()) as { id: string }).id);
    const linesBefore = countLines(logPath);
    const bytesBefore = statSync(logPath).size;
    return {
      pid: child.pid!,
      load: { origin, path: '/v1/messages', headers: { authorization: `Bearer ${token}` }, bodies: bodies(channelId) },
      stop: end,
      // Over every request answered, warm-up included: each writes its line as it is answered.
      after: (requests) => ({
        logLinesPerRequest: Math.round(((countLines(logPath) - linesBefore) / Math.max(1, requests)) * 100) / 100,
        logBytesPerRequest: Math.round((statSync(logPath).size - bytesBefore) / Math.max(1, requests)),
      }),
    };
  } catch (error) {
    await end();
    throw error;
  }
}

function countLines(path: string): number {
  const text = readFileSync(path);
  let n = 0;
  for (let i = text.indexOf(10); i !== -1; i = text.indexOf(10, i + 1)) n += 1;
  return n;
}

/** A database of its own on the PostgreSQL server of `adminUrl`, dropped by `drop`. */
async function createPostgresDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `parley_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

if (args['docs-only']) {
  // Rewrites the docs section from bench/results/send.json without measuring again.
  writeDocs(JSON.parse(readFileSync(join(ROOT, 'bench/results/send.json'), 'utf8')) as typeof results);
  console.log('wrote docs/benchmarks.md from bench/results/send.json');
  process.exit(0);
}
const stores = args.stores.split(',').map((s) => s.trim());
const loadAtStart = loadavg()[0]!;
console.log(
  `Send Message benchmark: ${connections} connections, ${warmupMs / 1000} s warm-up, ${durationMs / 1000} s measured per server in slices of ${sliceMs / 1000} s`,
);
if (loadAtStart > 1.5) console.log(`note: load average ${loadAtStart.toFixed(1)} at start: other work on this machine skews the figures`);

const show = (name: string, m: Measured) =>
  console.log(
    `${name.padEnd(18)} ${String(m.rps).padStart(6)} req/s  p50 ${m.latencyMs.p50} ms  p99 ${m.latencyMs.p99} ms  server CPU ${m.cpuUsPerRequest} us/req (${m.idleCpuMsPerSecond} ms/s unloaded)  machine idle ${m.machineIdle}  RSS ${m.rssMb} MB`,
  );

// Each store's run is a comparison with the baseline in alternating slices, repeated: the round
// with the median ratio is reported, every round's ratio with it.
const rounds = Math.max(1, Math.min(Number(args.rounds), 5));
const baselines: Record<string, Measured> = {};
const runs: Record<string, Measured> = {};
const roundRatios: Record<string, number[]> = {};
/** Every round answered only 201s and stored every message it answered 201 for. */
const clean: Record<string, boolean> = {};

/** A reference run, not a target: Parley on `store` with `env`, against the baseline. */
async function reference(name: string, store: string, env: Record<string, string>, what: string) {
  const { baseline, parley, ratio } = await compare(() => parleyTarget(store, env));
  show(`baseline (${name})`, baseline);
  show(name, parley);
  console.log(`${''.padEnd(18)} ratio ${ratio.toFixed(2)} (reference: ${what})`);
  return { baseline, parley, ratio: Math.round(ratio * 1000) / 1000 };
}

for (const store of stores) {
  const pairs: Array<{ baseline: Measured; parley: Measured; ratio: number }> = [];
  for (let round = 1; round <= rounds; round++) {
    const pair = await compare(() => parleyTarget(store));
    show(`baseline (${store})`, pair.baseline);
    show(store, pair.parley);
    console.log(`${''.padEnd(18)} round ${round}: ratio ${pair.ratio.toFixed(2)}; 201 answers ${pair.parley.created}, messages stored ${pair.parley.stored}`);
    pairs.push(pair);
  }
  const median = [...pairs].sort((a, b) => a.ratio - b.ratio)[Math.floor((pairs.length - 1) / 2)]!;
  baselines[store] = median.baseline;
  runs[store] = median.parley;
  roundRatios[store] = pairs.map((p) => Math.round(p.ratio * 1000) / 1000);
  clean[store] = pairs.every(({ parley: p }) => p.errors === 0 && Object.keys(p.statuses).every((code) => code === '201') && p.stored === p.created);
}

// The same service with its write replaced by a no-op: what it leaves to the baseline is the cost of
// everything but the write (HTTP, token, quota, validation, the rows and the answer); each store's
// run adds its write to that.
const ceiling = args['skip-ceiling'] ? null : await reference('write as a no-op', 'sqlite', { BENCH_WRITE_NOOP: '1' }, 'the service without its write');

// Per store, the channel with a webhook: each send also writes its `message_echo` event and the
// event's delivery (a channel without one keeps no event row).
const withWebhook: Record<string, { baseline: Measured; parley: Measured; ratio: number }> = {};
if (!args['skip-webhook']) {
  for (const store of stores) withWebhook[store] = await reference(`${store} + webhook`, store, { BENCH_WEBHOOK: '1' }, 'the channel with a webhook');
}

// Once more on SQLite, as `npm start` runs it: the build, the CLI, default logging.
let asStarted: { baseline: Measured; parley: AsStarted; ratio: number; loggingCost: number | null } | null = null;
if (!args['skip-start'] && stores.includes('sqlite')) {
  const pair = await compare(asStartedTarget);
  const parley = pair.parley as AsStarted;
  show('baseline (start)', pair.baseline);
  show('as npm start', parley);
  const silent = runs.sqlite;
  asStarted = {
    baseline: pair.baseline,
    parley,
    ratio: Math.round(pair.ratio * 1000) / 1000,
    // Against the silent SQLite run, each as a share of its own baseline.
    loggingCost: silent ? Math.round((1 - pair.ratio / (silent.rps / baselines.sqlite!.rps)) * 1000) / 1000 : null,
  };
  console.log(
    `${''.padEnd(18)} ratio ${asStarted.ratio.toFixed(2)}; ${parley.logLinesPerRequest} log line${parley.logLinesPerRequest === 1 ? '' : 's'} (${parley.logBytesPerRequest} bytes) per request`,
  );
}

const checks: Record<string, boolean> = {};
if (asStarted) {
  checks['as npm start: at most one log line per request'] = asStarted.parley.logLinesPerRequest <= 1;
  checks['as npm start: no errors, every 201 stored'] =
    asStarted.parley.errors === 0 &&
    Object.keys(asStarted.parley.statuses).every((code) => code === '201') &&
    asStarted.parley.stored === asStarted.parley.created;
}
for (const [store, r] of Object.entries(runs)) {
  const minRatio = store === 'sqlite' ? TARGETS.sqliteRatio : TARGETS.postgresRatio;
  checks[`${store}: ratio >= ${minRatio}`] = r.rps / baselines[store]!.rps >= minRatio;
  checks[`${store}: p99 <= ${TARGETS.p99Ms} ms`] = r.latencyMs.p99 <= TARGETS.p99Ms;
  checks[`${store}: p99 <= ${TARGETS.p99ToBaseline} x the baseline's p99`] = r.latencyMs.p99 <= TARGETS.p99ToBaseline * baselines[store]!.latencyMs.p99;
  checks[`${store}: RSS <= ${TARGETS.rssMb} MB`] = r.rssMb !== null && r.rssMb <= TARGETS.rssMb;
  checks[`${store}: no errors, every 201 stored (every round)`] = clean[store] === true;
}

const results = {
  benchmark: 'send',
  date: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAverageAtStart: Math.round(loadAtStart * 100) / 100,
  },
  setup: {
    connections,
    warmupSeconds: warmupMs / 1000,
    durationSeconds: durationMs / 1000,
    sliceSeconds: sliceMs / 1000,
    slicePauseMs: SLICE_PAUSE_MS,
    request: 'POST /v1/messages, text, mobile channel in test mode, 100 phone numbers in turn, enterprise account',
    server: `bundled to plain JavaScript with esbuild (as a production build runs), one process, node ${SERVER_NODE_FLAGS.join(' ')} (as npm start)`,
    sqlite: 'WAL, synchronous=NORMAL, group commit (one transaction per event-loop turn), checkpoints in a worker thread',
    postgres: 'local server, synchronous_commit=on, group commit (one prepared statement per batch), pool of 10',
  },
  targets: TARGETS,
  rounds,
  runs: Object.fromEntries(
    Object.entries(runs).map(([k, r]) => [
      k,
      { baseline: baselines[k]!, parley: r, ratio: Math.round((r.rps / baselines[k]!.rps) * 1000) / 1000, roundRatios: roundRatios[k] ?? [] },
    ]),
  ),
  ceiling,
  withWebhook,
  asStarted,
  checks,
};

if (!args['no-write']) {
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/send.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeDocs(results);
  console.log('wrote bench/results/send.json and docs/benchmarks.md');
}
for (const [name, ok] of Object.entries(checks)) console.log(`${ok ? 'PASS' : 'FAIL'}  ${name}`);
process.exit(Object.values(checks).every(Boolean) ? 0 : 1);

function writeDocs(r: typeof results): void {
  const path = join(ROOT, 'docs/benchmarks.md');
  const begin = '<!-- bench:send:begin -->';
  const end = '<!-- bench:send:end -->';
  /** A run's row; `base` is the baseline measured beside it, the limit of its p99. */
  const row = (name: string, m: Measured, ratio: string, base: Measured) =>
    `| ${name} | ${m.rps.toLocaleString('en-US')} | ${ratio} | ${m.latencyMs.p50} | ${m.latencyMs.p99} | ${(m.latencyMs.p99 / base.latencyMs.p99).toFixed(2)} | ${m.cpuUsPerRequest ?? '?'} | ${m.machineIdle === null || m.machineIdle === undefined ? '?' : Math.round(m.machineIdle * 100)} | ${m.rssMb ?? '?'} |`;
  const label = (k: string) => (k === 'sqlite' ? 'SQLite' : 'PostgreSQL');
  const section = [
    begin,
    '## Send Message',
    '',
    `\`npm run bench -- send\` — measured ${r.date.slice(0, 10)} on ${r.machine.cpus} cores (${r.machine.cpu}), Node ${r.machine.node}; load average ${r.machine.loadAverageAtStart} at start.`,
    `${r.setup.connections} connections from a second process (undici), ${r.setup.warmupSeconds} s warm-up, then ${r.setup.durationSeconds} s measured per server in slices of ${r.setup.sliceSeconds} s.`,
    `Request: ${r.setup.request}. The baseline is a bare Fastify endpoint with the same body validation and no store. It runs beside each Parley server, and the load goes to one at a time in alternating slices (baseline, Parley, Parley, baseline, ...) with a pause of ${r.setup.slicePauseMs} ms after each: on a machine whose speed drifts, both are measured under the same conditions.`,
    `Each store ran ${r.rounds} rounds (fresh servers and database each); the table shows the round with the median ratio. Ratios of all rounds: ${Object.entries(
      r.runs,
    )
      .map(([k, v]) => `${label(k)} ${v.roundRatios.map((x) => x.toFixed(2)).join(', ')}`)
      .join('; ')}.`,
    '',
    '| Run | Requests/s | Ratio to baseline | p50 ms | p99 ms | p99 ratio to baseline | Server CPU µs/request | Cores idle % | Server peak RSS MB |',
    '|---|---|---|---|---|---|---|---|---|',
    ...Object.entries(r.runs).flatMap(([k, v]) => [
      row(`Baseline beside ${label(k)}`, v.baseline, '1.00', v.baseline),
      row(`Parley on ${label(k)}`, v.parley, v.ratio.toFixed(2), v.baseline),
    ]),
    ...(r.ceiling
      ? [
          row('Baseline beside the no-op write', r.ceiling.baseline, '1.00', r.ceiling.baseline),
          row('Parley, its write a no-op (reference)', r.ceiling.parley, r.ceiling.ratio.toFixed(2), r.ceiling.baseline),
        ]
      : []),
    ...Object.entries(r.withWebhook ?? {}).flatMap(([k, v]) => [
      row(`Baseline beside ${label(k)} with a webhook`, v.baseline, '1.00', v.baseline),
      row(`Parley on ${label(k)}, the channel with a webhook (reference)`, v.parley, v.ratio.toFixed(2), v.baseline),
    ]),
    ...(r.asStarted
      ? [
          row('Baseline beside npm start', r.asStarted.baseline, '1.00', r.asStarted.baseline),
          row('Parley as `npm start` (SQLite, `info` logs)', r.asStarted.parley, r.asStarted.ratio.toFixed(2), r.asStarted.baseline),
        ]
      : []),
    '',
    ...(r.asStarted
      ? [
          'The store runs above measure the service with logging off (`LOG_LEVEL=silent`). The last run is the service as',
          '`npm start` runs it: the build script, then `node --max-semi-space-size=32 dist/src/cli.js serve` with no setting',
          'but its data folder and port, so logging is at `info` and goes to a file; the account and token come from the',
          `CLI and the channel from the API. It wrote ${r.asStarted.parley.logLinesPerRequest} log line${r.asStarted.parley.logLinesPerRequest === 1 ? '' : 's'} (${r.asStarted.parley.logBytesPerRequest} bytes) per request; against the silent`,
          `SQLite run, each as a share of its own baseline, the default logging cost ${r.asStarted.loggingCost === null ? '?' : `${Math.round(r.asStarted.loggingCost * 1000) / 10}%`} of the throughput.`,
          '',
        ]
      : []),
    `Targets: SQLite at least ${TARGETS.sqliteRatio} of the baseline (durability: WAL, \`synchronous=NORMAL\`), PostgreSQL at least ${TARGETS.postgresRatio}, p99 at most ${TARGETS.p99Ms} ms and at most ${TARGETS.p99ToBaseline} times the baseline's p99, server RSS at most ${TARGETS.rssMb} MB.`,
    '',
    ...Object.entries(r.checks).map(([name, ok]) => `- ${ok ? 'pass' : 'FAIL'}: ${name}`),
    '',
    'How the write path gets there:',
    '',
    '- A channel without a webhook keeps no row for the events about its messages: nothing would read them (the',
    "  message row holds what they report). The benchmark's channel has none, so a send writes its message",
    '  (and its contact, once). With a webhook it also writes the `message_echo` event, its exact JSON body, and',
    '  its delivery: the reference rows "with a webhook" above.',
    '- Every id is made in the process, so nothing is read back after a write; channels and contacts are',
    '  cached per process (dropped when they change here, and after a few seconds for changes made elsewhere).',
    '- The rows of one send (contact if new, message, with a webhook its `message_echo` event and delivery, the send job) form one',
    '  write unit. The units of one event-loop turn are committed together (group commit): on SQLite one',
    '  transaction of prepared inserts (a failing unit makes the batch roll back and its units run one by one),',
    '  on PostgreSQL one statement, a named prepared `insert ... select ... from json_populate_recordset(...)`',
    "  per table chained as CTEs, with no BEGIN/COMMIT round trips. Each table's rows are one json parameter:",
    '  `JSON.stringify` is native, where an array parameter per column was escaped element by element in',
    "  JavaScript (about 15 µs of the service's CPU per send; the backend's work is the same). A 201 is",
    '  answered only after the commit.',
    '- Every index keyed by contact puts almost every message on a different b-tree page, and each such page',
    '  is written to the WAL again at the next commit (4 KB for a 20-byte entry). Only `messages_contact`',
    '  (List Messages) is left: events about a message name the message (an index in id order, so new',
    '  entries share the last page) and the contact is reached through it; `messages_channel` went, as',
    '  `messages_external` starts with the same columns. This took about a third off the time of the write.',
    '- On SQLite the ids of messages, events and deliveries are the rowid (`integer primary key`): an insert',
    '  writes one b-tree for the id, not a table and a separate unique index.',
    '- SQLite WAL checkpoints (with their fsync) run in a worker thread on their own connection, not on the',
    '  event loop. Under steady writes a passive checkpoint never reaches the end of the WAL, so past 32768',
    '  frames the worker runs a RESTART checkpoint: the WAL is written again over blocks already allocated',
    '  (a TRUNCATE checkpoint, which frees them, measured about 10% slower).',
    '- The hourly quota costs no round trip on PostgreSQL: each instance leases blocks of positions in the',
    '  shared count and hands them out locally (exact at the limit: blocks shrink to single requests there).',
    '  On SQLite the count is in memory.',
    '- Per request: token lookups are cached by the token itself (no hash on a hit), the hooks that only',
    '  release a counter are callback hooks (no promise), and prepared inserts are found by row shape.',
    '',
    ...(r.ceiling
      ? [
          "The reference row is the same service with the store's write replaced by a no-op (nothing is stored; not a",
          'result). Its ratio is the most a store could reach on this request path: the gap from it to the baseline is',
          'the rest of the request (token, quota, validation, the contact, the rows, the answer, the metrics), and the',
          "gap from each store's run to it is that store's write.",
          '',
        ]
      : []),
    "Cores idle is the share of the machine's CPU time left unused during that server's slices. The bare endpoint",
    'and the load generator use the two cores whole. Parley leaves about a fifth of them unused: its event loop',
    "is the limit (on SQLite the thread was busy all the time, read from `/proc`), and at Parley's rate the load",
    "generator needs less than the other core. What makes a Parley request dearer than the bare endpoint's: on",
    'SQLite the write (the inserts and the commit, on the event loop: about 30 to 40 µs a request), and the rest of',
    'the request (token, quota, contact, rows, answer, metrics: about 20 to 25 µs, spread over many small steps). On',
    "PostgreSQL the event loop also builds and sends each batch statement and reads its answer, and the database's",
    'backends use the same two cores. A shared virtual machine changes speed by up to a factor of two within a',
    'minute, and its slow phases give higher ratios than its fast ones: compare the ratios of one run.',
    '',
    'Raw figures: `bench/results/send.json`. The machine is shared: a load average above 1 at the start means',
    'other work ran during the measurement, which lowers every figure, the baseline included.',
    end,
  ].join('\n');
  let text = existsSync(path)
    ? readFileSync(path, 'utf8')
    : "# Benchmarks\n\nFigures measured on the project's 2-core machine. Each section is rewritten by its benchmark script.\n";
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  if (a >= 0 && b > a) text = `${text.slice(0, a)}${section}${text.slice(b + end.length)}`;
  else text = `${text.trimEnd()}\n\n${section}\n`;
  mkdirSync(join(ROOT, 'docs'), { recursive: true });
  writeFileSync(path, text);
}
