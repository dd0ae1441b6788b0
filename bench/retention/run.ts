/**
 * Retention benchmark (`npm run bench -- retention [options]`; `--help` lists them): Send Message
 * p99 with and without a retention pass purging a backlog of finished rows. For each store
 * (SQLite, and PostgreSQL when reachable) two runs on fresh databases holding the same backlog
 * (bench/retention/server.ts, its own process): one with no purge, one whose purge starts when
 * the load's warm-up ends. The load comes from a second process (bench/send/load.ts, 50
 * connections). Target: p99 with the purge at most 10% above p99 without. The figures count
 * only while the purge lasted the whole measured window: the results say how long it ran.
 * Writes bench/results/retention.json and the "Retention" section of docs/benchmarks.md.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createTestDatabase, type Dialect } from '../../test/helpers/databases.js';
import { benchStores, cpuMs, earlierNotes, machineFacts, startBenchProcess, writeDocsSection } from '../shared/process.js';
import type { LoadResult, LoadSpec } from '../send/load.js';

const ROOT = resolve(import.meta.dirname, '../..');
const RESULTS = join(ROOT, 'bench/results/retention.json');
const TARGET_P99_RATIO = 1.1;

const HELP = `Retention benchmark: Send Message p99 with and without a retention purge of a backlog.

usage: npm run bench -- retention [options]

  --rows N          finished rows in the backlog, per run (default 200000; the issue's
                    figure is 1000000, which takes several minutes per run to write)
  --duration S      seconds measured per run (default 8, at most 60)
  --warmup S        seconds of warm-up per run, before the purge starts (default 2)
  --connections N   concurrent connections of the load (default 50)
  --only STORE      sqlite or postgres (default: both, PostgreSQL when reachable)
  --batch-size N    RETENTION_BATCH_SIZE of the service, the largest batch (default: the
                    service's, 1000 on PostgreSQL and 100 on SQLite)
  --pause-ms N      RETENTION_BATCH_PAUSE_MS of the service, the shortest pause (default: 20)
  --load-share P    RETENTION_LOAD_SHARE_PERCENT of the service (default: the service's, 5)
  --idle-wait S     after the load, seconds to wait for the purge to finish with no load
                    (default 300; its rate idle is measured meanwhile)
  --no-docs         do not write bench/results/retention.json nor docs/benchmarks.md
  --docs-only       rewrite the docs section from bench/results/retention.json
  --help            this text

PostgreSQL: PG_TEST_URL (default postgres://postgres@127.0.0.1:5432/test), a throw-away
database per run. Exit code 1 when the target (p99 with the purge <= 1.10 x without) is missed.
`;

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '200000' },
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
    'batch-size': { type: 'string' },
    'pause-ms': { type: 'string' },
    'load-share': { type: 'string' },
    'idle-wait': { type: 'string', default: '300' },
    'no-docs': { type: 'boolean', default: false },
    'docs-only': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const wholeNumber = (name: string, value: string, min: number, max: number): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    process.stderr.write(`--${name} must be a whole number from ${min} to ${max} (got ${value})\n\n${HELP}`);
    process.exit(2);
  }
  return n;
};
const ROWS = wholeNumber('rows', args.rows, 5, 10_000_000);
const DURATION_MS = wholeNumber('duration', args.duration, 1, 60) * 1000;
const WARMUP_MS = wholeNumber('warmup', args.warmup, 0, 30) * 1000;
const CONNECTIONS = wholeNumber('connections', args.connections, 1, 1000);
const IDLE_WAIT_S = wholeNumber('idle-wait', args['idle-wait'], 0, 3600);

interface Run {
  load: LoadResult;
  seeded: number;
  seedSeconds: number;
  /** Server CPU over the measured window, ms. */
  serverCpuMs: number | null;
  stored: number;
  purge: { seconds: number | null; counts: Record<string, number> | null; error?: string } | null;
  left: Record<string, number>;
  /** Backlog rows the purge deleted while the load ran (from its start to the load's end). */
  underLoad: { seconds: number; rowsPurged: number } | null;
  /** Then, with no load: how long the rest took (finished: the whole backlog gone within the wait). */
  idle: { seconds: number; rowsPurged: number; finished: boolean } | null;
}

interface Results {
  benchmark: 'retention';
  date: string;
  machine: Record<string, unknown>;
  setup: Record<string, unknown>;
  targetP99Ratio: number;
  runs: Record<string, { without: Run; with: Run; p99Ratio: number; purgeCoveredWindow: boolean }>;
  checks: Record<string, boolean>;
  notes: string[];
}

function load(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/send/load.ts'), JSON.stringify(spec)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('exit', (code) => (code === 0 ? done(JSON.parse(out) as LoadResult) : fail(new Error(`load generator exited with ${code}`))));
  });
}

function bodies(channelId: string): string[] {
  return Array.from({ length: 100 }, (_, i) =>
    JSON.stringify({
      channel: { id: channelId },
      contact: { phone_number: `+4206011${String(i).padStart(5, '0')}` },
      content: { type: 'text', payload: `Hello from the benchmark, message for contact ${i}.` },
    }),
  );
}

async function measure(dialect: Dialect, withPurge: boolean): Promise<Run> {
  const database = await createTestDatabase(dialect);
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-retention-'));
  try {
    const server = await startBenchProcess<{ port: number; token: string; channelId: string; seeded: number; seedSeconds: number }>(
      'bench/retention/server.ts',
      {
        BENCH_DATABASE_URL: database.url,
        BENCH_DATA_DIR: dataDir,
        BENCH_ROWS: String(ROWS),
        ...(withPurge ? { BENCH_PURGE_AFTER_MS: String(WARMUP_MS) } : {}),
        ...(args['batch-size'] ? { RETENTION_BATCH_SIZE: args['batch-size'] } : {}),
        ...(args['pause-ms'] ? { RETENTION_BATCH_PAUSE_MS: args['pause-ms'] } : {}),
        ...(args['load-share'] ? { RETENTION_LOAD_SHARE_PERCENT: args['load-share'] } : {}),
        BENCH_IDLE_WAIT_MS: String(IDLE_WAIT_S * 1000),
      },
    );
    try {
      const { port, token, channelId } = server.info;
      const spec: LoadSpec = {
        origin: `http://127.0.0.1:${port}`,
        path: '/v1/messages',
        headers: { authorization: `Bearer ${token}` },
        bodies: bodies(channelId),
        connections: CONNECTIONS,
        warmupMs: 0,
        durationMs: WARMUP_MS,
        maxRequests: 2_000_000,
      };
      // The server starts its purge WARMUP_MS after its ready line: the warm-up covers that time.
      const warm = WARMUP_MS > 0 ? await load(spec) : null;
      const cpuBefore = cpuMs(server.child.pid);
      const result = await load({ ...spec, durationMs: DURATION_MS });
      const cpuAfter = cpuMs(server.child.pid);
      const closing = (await server.stop()) as {
        stored?: number;
        purge?: Run['purge'];
        left?: Record<string, number>;
        underLoad?: Run['underLoad'];
        idle?: Run['idle'];
      };
      return {
        // Every 201 of the run, the warm-up's included, is what the store must hold.
        load: { ...result, created: result.created + (warm?.created ?? 0) },
        seeded: server.info.seeded,
        seedSeconds: server.info.seedSeconds,
        serverCpuMs: cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null,
        stored: closing.stored ?? -1,
        purge: closing.purge ?? null,
        left: closing.left ?? {},
        underLoad: closing.underLoad ?? null,
        idle: closing.idle ?? null,
      };
    } catch (error) {
      server.child.kill('SIGKILL');
      throw error;
    }
  } finally {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Rows a second, or a dash. */
const rate = (rows: number, seconds: number) => (seconds > 0 ? Math.round(rows / seconds).toLocaleString('en-US') : '—');

function paceRow(store: string, run: Run): string {
  const u = run.underLoad;
  const i = run.idle;
  return `| ${store} | ${u ? u.rowsPurged.toLocaleString('en-US') : '—'} | ${u?.seconds ?? '—'} | ${u ? rate(u.rowsPurged, u.seconds) : '—'} | ${
    i ? i.rowsPurged.toLocaleString('en-US') : '—'
  } | ${i?.seconds ?? '—'} | ${i ? rate(i.rowsPurged, i.seconds) : '—'} | ${i ? (i.finished ? 'yes' : 'no') : '—'} |`;
}

function writeDocs(r: Results): void {
  const label = (k: string) => (k === 'sqlite' ? 'SQLite' : 'PostgreSQL');
  const row = (name: string, run: Run) =>
    `| ${name} | ${run.load.rps.toLocaleString('en-US')} | ${run.load.latencyMs.p50} | ${run.load.latencyMs.p99} | ${
      run.purge ? `${run.purge.seconds ?? 'still running'}${run.purge.seconds === null ? '' : ' s'}` : '—'
    } | ${
      run.purge?.counts
        ? Object.values(run.purge.counts)
            .reduce((a, b) => a + b, 0)
            .toLocaleString('en-US')
        : '—'
    } |`;
  writeDocsSection(
    'retention',
    [
      '## Retention',
      '',
      `\`npm run bench -- retention\` — measured ${r.date.slice(0, 10)} on ${String(r.machine.cpus)} cores, Node ${String(r.machine.node)}; load average ${String(r.machine.loadAverageAtStart)} at start.`,
      `Send Message (${String(r.setup.connections)} connections from a second process, ${String(r.setup.warmupSeconds)} s warm-up, ${String(r.setup.durationSeconds)} s measured) on a database holding a backlog of ${Number(r.setup.rows).toLocaleString('en-US')} finished rows 60 days old (messages with their event, delivered delivery, attempt and done job), without and with a retention pass purging it from the end of the warm-up with the service's pacing (docs/retention.md#pacing: largest batch ${String(r.setup.batchSize)}, shortest pause ${String(r.setup.pauseMs)} ms, load share ${String(r.setup.loadSharePercent ?? 5)}%).`,
      '',
      '| Run | Requests/s | p50 ms | p99 ms | Purge took | Rows purged |',
      '|---|---|---|---|---|---|',
      ...Object.entries(r.runs).flatMap(([k, v]) => [row(`${label(k)}, no purge`, v.without), row(`${label(k)}, purging`, v.with)]),
      '',
      "The purge's pace: rows of the backlog deleted while the load ran, then with no load (after the load, for at most the idle wait).",
      '',
      '| Store | Under load: rows | s | rows/s | Idle: rows | s | rows/s | Backlog gone |',
      '|---|---|---|---|---|---|---|---|',
      ...Object.entries(r.runs).map(([k, v]) => paceRow(label(k), v.with)),
      '',
      `Target: p99 while purging at most ${r.targetP99Ratio.toFixed(2)} times p99 without. A purge that ended before the measured window did is said so below; its figures then understate the cost.`,
      '',
      ...Object.entries(r.checks).map(([name, ok]) => `- ${ok ? 'pass' : 'FAIL'}: ${name}`),
      ...r.notes.map((n) => `- ${n}`),
      '',
      'Raw figures: `bench/results/retention.json`.',
    ].join('\n'),
  );
}

if (args['docs-only']) {
  writeDocs(JSON.parse(readFileSync(RESULTS, 'utf8')) as Results);
  console.log('wrote docs/benchmarks.md from bench/results/retention.json');
  process.exit(0);
}

const stores = args.only ? [args.only as Dialect] : await benchStores();
console.log(
  `Retention benchmark: backlog of ${ROWS} rows, ${CONNECTIONS} connections, ${WARMUP_MS / 1000} s warm-up, ${DURATION_MS / 1000} s measured per run`,
);
const runs: Results['runs'] = {};
const checks: Record<string, boolean> = {};
for (const store of stores) {
  const without = await measure(store, false);
  console.log(`${store} no purge: p99 ${without.load.latencyMs.p99} ms, ${without.load.rps} req/s (backlog written in ${without.seedSeconds} s)`);
  const purging = await measure(store, true);
  const purge = purging.purge;
  console.log(
    `${store} purging: p99 ${purging.load.latencyMs.p99} ms, ${purging.load.rps} req/s; purge ${purge?.seconds === null ? 'still running at the end' : `took ${purge?.seconds} s`}, ${JSON.stringify(purge?.counts ?? null)}`,
  );
  const u = purging.underLoad;
  const i = purging.idle;
  console.log(
    `${store} purge pace: under load ${u ? `${u.rowsPurged} rows in ${u.seconds} s (${rate(u.rowsPurged, u.seconds)}/s)` : '—'}; idle ${
      i ? `${i.rowsPurged} rows in ${i.seconds} s (${rate(i.rowsPurged, i.seconds)}/s), ${i.finished ? 'backlog gone' : 'not finished within the wait'}` : '—'
    }`,
  );
  const p99Ratio = Math.round((purging.load.latencyMs.p99 / without.load.latencyMs.p99) * 1000) / 1000;
  const purgeCoveredWindow = purge !== null && (purge.seconds === null || purge.seconds * 1000 >= DURATION_MS);
  runs[store] = { without, with: purging, p99Ratio, purgeCoveredWindow };
  checks[`${store}: p99 purging <= ${TARGET_P99_RATIO} x p99 without (${p99Ratio.toFixed(2)})`] = p99Ratio <= TARGET_P99_RATIO;
  checks[`${store}: every 201 stored, no errors, in both runs`] = [without, purging].every(
    (r) => r.load.errors === 0 && Object.keys(r.load.statuses).every((code) => code === '201') && r.stored === r.load.created,
  );
  checks[`${store}: the purge ran without error`] = purge !== null && purge.error === undefined;
}

const notes = earlierNotes(RESULTS).filter((n) => !n.startsWith('The purge ended'));
for (const [store, r] of Object.entries(runs)) {
  if (!r.purgeCoveredWindow)
    notes.push(
      `The purge ended after ${r.with.purge?.seconds} s on ${store}, before the ${DURATION_MS / 1000} s window did: a larger --rows measures it throughout.`,
    );
}
const results: Results = {
  benchmark: 'retention',
  date: new Date().toISOString(),
  machine: machineFacts(),
  setup: {
    rows: ROWS,
    connections: CONNECTIONS,
    warmupSeconds: WARMUP_MS / 1000,
    durationSeconds: DURATION_MS / 1000,
    batchSize: args['batch-size'] ?? 'the default (1000 on PostgreSQL, 100 on SQLite)',
    pauseMs: args['pause-ms'] ?? 20,
    loadSharePercent: args['load-share'] ?? 5,
    idleWaitSeconds: IDLE_WAIT_S,
    request: 'POST /v1/messages, text, mobile channel in test mode, 100 phone numbers in turn, enterprise account',
  },
  targetP99Ratio: TARGET_P99_RATIO,
  runs,
  checks,
  notes,
};
if (!args['no-docs']) {
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  writeDocs(results);
  console.log('wrote bench/results/retention.json and docs/benchmarks.md');
}
for (const [name, ok] of Object.entries(checks)) console.log(`${ok ? 'PASS' : 'FAIL'}  ${name}`);
const target = Object.entries(runs).map(([store, r]) => `${store} ${r.p99Ratio.toFixed(2)}x`);
console.log(
  `${Object.values(runs).every((r) => r.p99Ratio <= TARGET_P99_RATIO) ? 'PASS' : 'FAIL'}  target: Send Message p99 while purging <= ${TARGET_P99_RATIO} x without (${target.join(', ')})`,
);
process.exit(Object.values(checks).every(Boolean) ? 0 : 1);
