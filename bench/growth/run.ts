/**
 * Cost growth benchmark (`npm run bench -- growth [--sizes 0,1000000,10000000] [--rounds 3] [--only sqlite|postgres]`).
 * For each store and each number of messages already stored (bench/growth/server.ts seeds them):
 *  - List Messages of one contact with 50,000 messages and List Contacts of the channel (up to
 *    100,000 contacts): first page and offset 10,000, `max=100`, one request at a time from a
 *    second process's connection, p50/p99;
 *  - Send Message at 50 connections (the Send Message benchmark's load), requests/s and p99, as a
 *    ratio to the same store when empty (target: at least 0.9). The stores of every size run side
 *    by side and the load visits them in turn, `--rounds` times: each ratio is the median of the
 *    ratios of adjacent runs, so other work on a shared machine weighs on both sides alike.
 *  - Drains with finished rows (`--finished N`, 0 to skip): the webhook worker's deliveries/s
 *    (bench/webhooks/drain.ts) and the send worker's SMS/s (bench/send-worker/drain.ts) for a fresh
 *    backlog, with N finished deliveries (with their events and tries) or N finished send jobs
 *    (with their messages) already stored (bench/growth/finished.ts), as a ratio to the same
 *    drain on an empty store run just before and just after it (target: at least 0.9).
 * Writes bench/results/growth.json and the "Cost growth" section of docs/benchmarks.md.
 * `--drain-only` measures the drains only and keeps the rest from the earlier results file;
 * `--docs-only` rewrites the docs section from it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { createTestDatabase, type Dialect } from '../../test/helpers/databases.js';
import { sendDrain, StandIn } from '../send-worker/drain.js';
import { webhookDrain } from '../webhooks/drain.js';
import { benchStores, cpuMs, earlierNotes, machineFacts, percentile, startBenchProcess, writeDocsSection } from '../shared/process.js';
import type { LoadResult } from '../send/load.js';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '0,1000000' },
    only: { type: 'string' },
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '300' },
    finished: { type: 'string', default: '1000000' },
    'drain-events': { type: 'string', default: '20000' },
    'drain-only': { type: 'boolean', default: false },
    /** Rewrites the docs section from bench/results/growth.json without measuring. */
    'docs-only': { type: 'boolean', default: false },
    'no-docs': { type: 'boolean', default: false },
  },
});
const FINISHED = Number(args.finished);
const DRAIN_EVENTS = Number(args['drain-events']);
/**
 * The wait between the fill of finished rows and the drain, so that the drain does not start in
 * the fill's wake (a store that grew over time has no such burst behind it).
 */
const SETTLE_MS = '15000';
const SIZES = args.sizes.split(',').map(Number);
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const REQUESTS = Number(args.requests);
const TARGETS = { sendRatio: 0.9, sqliteFirstPageP99Ms: 10, drainRatio: 0.9 };

interface Ready {
  port: number;
  token: string;
  channelId: string;
  deepContactId: string | null;
  contacts: number;
  seedSeconds: number;
}

/** p50/p99 of `REQUESTS` GETs of `path`, one at a time, after 20 unmeasured ones. */
async function reads(origin: string, token: string, path: string): Promise<{ p50: number; p99: number; status: number; total: string | null }> {
  const pool = new Pool(origin, { connections: 1, keepAliveTimeout: 30_000 });
  const headers = { authorization: `Bearer ${token}` };
  const times: number[] = [];
  let status = 0;
  let total: string | null = null;
  try {
    for (let i = 0; i < REQUESTS + 20; i++) {
      const started = performance.now();
      const res = await pool.request({ path, method: 'GET', headers });
      await res.body.dump();
      if (i >= 20) times.push(performance.now() - started);
      status = res.statusCode;
      total = (res.headers['x-total-count'] as string | undefined) ?? null;
    }
  } finally {
    await pool.close();
  }
  times.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  return { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), status, total };
}

function load(origin: string, token: string, channelId: string): Promise<LoadResult> {
  const bodies = Array.from({ length: 100 }, (_, i) =>
    JSON.stringify({
      channel: { id: channelId },
      contact: { phone_number: `+4206011${String(i).padStart(5, '0')}` },
      content: { type: 'text', payload: `Hello from the benchmark, message for contact ${i}.` },
    }),
  );
  const spec = {
    origin,
    path: '/v1/messages',
    headers: { authorization: `Bearer ${token}` },
    bodies,
    connections: 50,
    warmupMs: 2000,
    durationMs: SECONDS * 1000,
    maxRequests: 2_000_000,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/send/load.ts', JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load exited with ${code}`))));
  });
}

interface Store {
  messages: number;
  drop(): Promise<void>;
  server: Awaited<ReturnType<typeof startBenchProcess<Ready>>>;
  origin: string;
}

async function open(dialect: Dialect, messages: number): Promise<Store> {
  const db = await createTestDatabase(dialect);
  const server = await startBenchProcess<Ready>('bench/growth/server.ts', {
    BENCH_DATABASE_URL: db.url,
    BENCH_DATA_DIR: db.dataDir,
    BENCH_MESSAGES: String(messages),
  });
  return { messages, drop: () => db.drop(), server, origin: `http://127.0.0.1:${server.info.port}` };
}

async function lists(store: Store): Promise<Record<string, unknown>> {
  const { token, channelId, deepContactId } = store.server.info;
  const out: Record<string, unknown> = {};
  if (!deepContactId) return out;
  const messagesPath = `/v1/channels/${channelId}/contacts/${deepContactId}/messages?max=100`;
  out.messagesFirstPage = await reads(store.origin, token, messagesPath);
  out.messagesOffset10000 = await reads(store.origin, token, `${messagesPath}&offset=10000`);
  out.contactsFirstPage = await reads(store.origin, token, `/v1/channels/${channelId}/contacts?max=100`);
  out.contactsOffset10000 = await reads(store.origin, token, `/v1/channels/${channelId}/contacts?max=100&offset=10000`);
  return out;
}

/** Every size of one store side by side: the lists of each, then the Send Message rounds in turn. */
async function measureStore(dialect: Dialect): Promise<Array<Record<string, unknown>>> {
  const stores: Store[] = [];
  try {
    for (const size of SIZES) {
      process.stderr.write(`${dialect}: ${size} messages stored...\n`);
      stores.push(await open(dialect, size));
    }
    const listed = [];
    for (const store of stores) listed.push(await lists(store));
    const sends: LoadResult[][] = stores.map(() => []);
    const cpu: number[] = stores.map(() => 0);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, store] of stores.entries()) {
        const before = cpuMs(store.server.child.pid);
        const r = await load(store.origin, store.server.info.token, store.server.info.channelId);
        const after = cpuMs(store.server.child.pid);
        if (before !== null && after !== null) cpu[i]! += after - before;
        sends[i]!.push(r);
        process.stderr.write(`${dialect}: round ${round + 1}, ${store.messages} stored: ${r.rps} requests/s\n`);
      }
    }
    const results: Array<Record<string, unknown>> = [];
    for (const [i, store] of stores.entries()) {
      const closing = await store.server.stop();
      const runs = sends[i]!;
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const ratios = runs.map((r, k) => Math.round((r.rps / sends[0]![k]!.rps) * 100) / 100);
      results.push({
        messages: store.messages,
        contacts: store.server.info.contacts,
        seedSeconds: store.server.info.seedSeconds,
        lists: listed[i],
        send: {
          rps: median(runs.map((r) => r.rps)),
          p99: median(runs.map((r) => r.latencyMs.p99)),
          rounds: runs.map((r) => ({ rps: r.rps, p50: r.latencyMs.p50, p99: r.latencyMs.p99, errors: r.errors, statuses: r.statuses })),
          ratioToEmpty: median(ratios),
          ratiosToEmpty: ratios,
        },
        serverCpuMs: cpu[i],
        stored: closing.stored,
        created: runs.reduce((n, r) => n + r.created, 0),
      });
    }
    return results;
  } finally {
    for (const store of stores) {
      if (store.server.child.exitCode === null) await store.server.stop().catch(() => undefined);
      await store.drop();
    }
  }
}

/**
 * One store's drains: empty, with FINISHED finished rows, empty again (the ratio is to the mean of
 * the two empty runs, so a machine that got busier or quieter during the run weighs on both sides).
 */
async function measureDrains(dialect: Dialect, standIn: StandIn, smsKey: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const runs = [0, FINISHED, 0];
  const webhooks = [];
  for (const finished of runs) {
    process.stderr.write(`${dialect}: webhook drain of ${DRAIN_EVENTS} events, ${finished} finished deliveries stored...\n`);
    const r = await webhookDrain(dialect, DRAIN_EVENTS, { BENCH_FINISHED: String(finished), BENCH_SETTLE_MS: SETTLE_MS });
    process.stderr.write(`${dialect}: ${JSON.stringify(r)}\n`);
    webhooks.push({ finished, ...r });
  }
  const sends = [];
  const env = (s: StandIn, db: { url: string; dataDir: string }, finished: number) => ({
    BENCH_DATABASE_URL: db.url,
    BENCH_DATA_DIR: db.dataDir,
    SMSPROVIDER_API_URL: s.url,
    BENCH_SMS_KEY: smsKey,
    BENCH_FINISHED: String(finished),
    BENCH_SETTLE_MS: SETTLE_MS,
  });
  for (const finished of runs) {
    process.stderr.write(`${dialect}: send drain of ${DRAIN_EVENTS} jobs, ${finished} finished jobs stored...\n`);
    const r = await sendDrain(dialect, standIn, DRAIN_EVENTS, (s, db) => env(s, db, finished));
    process.stderr.write(`${dialect}: ${JSON.stringify(r)}\n`);
    sends.push({ finished, ...r });
  }
  const ratio = (xs: Array<Record<string, unknown>>) => {
    const rate = (x: Record<string, unknown>) => Number(x.perSecond);
    return Math.round((rate(xs[1]!) / ((rate(xs[0]!) + rate(xs[2]!)) / 2)) * 100) / 100;
  };
  out.webhooks = { runs: webhooks, ratioToEmpty: ratio(webhooks) };
  out.sendWorker = { runs: sends, ratioToEmpty: ratio(sends) };
  return out;
}

function drainLines(results: Record<string, any>): string[] {
  const name = (d: string) => (d === 'sqlite' ? 'SQLite' : 'PostgreSQL');
  const drains = results.drains as Record<string, any> | undefined;
  if (!drains || Object.keys(drains).length === 0) return [];
  const rows: string[] = [];
  const checks: string[] = [];
  for (const [d, r] of Object.entries(drains)) {
    for (const [label, m, unit] of [
      ['Webhook delivery', r.webhooks, 'deliveries'],
      ['Send worker', r.sendWorker, 'sends'],
    ] as const) {
      const [e1, full, e2] = m.runs;
      const all = m.runs.every((x: any) => x.complete);
      rows.push(
        `| ${name(d)} | ${label} | ${e1.perSecond} | ${full.perSecond} | ${e2.perSecond} | **${m.ratioToEmpty.toFixed(2)}** | ${all ? 'all' : 'NOT all'} | ${m.runs.map((x: any) => x.loadAverage).join(' / ')} |`,
      );
      checks.push(
        `- ${m.ratioToEmpty >= TARGETS.drainRatio ? 'pass' : 'FAIL'}: ${name(d)} ${label.toLowerCase()} drain with ${Number(full.finished).toLocaleString('en-US')} finished ${unit} stored at least ${TARGETS.drainRatio} of the empty store (${m.ratioToEmpty.toFixed(2)})`,
      );
    }
  }
  const s = results.drainSettings;
  return [
    `**Drains with finished rows** (\`npm run bench -- growth --drain-only --finished ${s.finished} --drain-events ${s.events}\`, measured ${s.date}; part of every growth run unless \`--finished 0\`).`,
    `A fresh backlog of ${s.events.toLocaleString('en-US')} webhook events (bench/webhooks/drain.ts) or queued sends (bench/send-worker/drain.ts) is drained`,
    `by the service with ${s.finished.toLocaleString('en-US')} finished rows already in the table: deliveries (each with its event and one try) or send`,
    'jobs (each with its message), ended over the last 30 days, 1 in 20 failed, the rest delivered / done, written',
    `with SQL set statements; the worker starts ${Number(SETTLE_MS) / 1000} s after the fill (bench/growth/finished.ts). Each drain runs on an`,
    'empty store just before and just after (rates per second; the ratio is to the mean of the two empty runs).',
    '',
    '| Store | Drain | Empty, before | With finished rows | Empty, after | Ratio to empty | Arrived | Load average at the three starts |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...checks,
    '',
  ];
}

function docsSection(results: Record<string, any>): string {
  const st = results.settings;
  const name = (d: string) => (d === 'sqlite' ? 'SQLite' : 'PostgreSQL');
  const lines: string[] = [];
  const checks: string[] = [];
  for (const [d, runs] of Object.entries(results.stores as Record<string, any[]>)) {
    const empty = runs.find((r) => r.messages === 0);
    for (const r of runs) {
      const ratio = empty ? (r.send.ratioToEmpty as number) : null;
      const l = r.lists;
      const cell = (x: any) => (x ? `${x.p50} / ${x.p99}` : '—');
      lines.push(
        `| ${name(d)} | ${r.messages.toLocaleString('en-US')} | ${r.send.rps} | ${ratio === null ? '?' : ratio.toFixed(2)} | ${r.send.p99} | ${cell(l.messagesFirstPage)} | ${cell(l.messagesOffset10000)} | ${cell(l.contactsFirstPage)} | ${cell(l.contactsOffset10000)} |`,
      );
      if (ratio !== null && r.messages > 0)
        checks.push(
          `- ${ratio >= TARGETS.sendRatio ? 'pass' : 'FAIL'}: ${name(d)} Send Message with ${r.messages.toLocaleString('en-US')} messages stored at least ${TARGETS.sendRatio} of the empty store (${ratio.toFixed(2)})`,
        );
      if (d === 'sqlite' && l.messagesFirstPage)
        checks.push(
          `- ${l.messagesFirstPage.p99 < TARGETS.sqliteFirstPageP99Ms && l.contactsFirstPage.p99 < TARGETS.sqliteFirstPageP99Ms ? 'pass' : 'FAIL'}: SQLite first pages p99 under ${TARGETS.sqliteFirstPageP99Ms} ms with ${r.messages.toLocaleString('en-US')} messages (messages ${l.messagesFirstPage.p99} ms, contacts ${l.contactsFirstPage.p99} ms)`,
        );
    }
  }
  return [
    '## Cost growth',
    '',
    `\`npm run bench -- growth --sizes ${st.sizes.join(',')}\` (bench/growth/) — measured ${results.date} on ${results.machine.cpus} cores (${results.machine.cpuModel}), Node ${results.machine.node}; load average ${results.machine.loadAverageAtStart} at start.`,
    'Each row is a fresh store holding that many messages in one channel (written with SQL set statements before the',
    'service listens; up to 100,000 contacts, one of them with 50,000 messages), then: List Messages of that contact and',
    `List Contacts of the channel, \`max=100\`, first page and \`offset=10000\`, ${st.requests} requests one at a time (p50 / p99 in ms);`,
    `then Send Message at 50 connections for ${st.seconds} s after a 2 s warm-up, ${st.rounds} rounds visiting the stores of every size in turn (all of them`,
    'open side by side): requests/s and p99 are the medians of the rounds, the ratio the median of the ratios to the empty',
    'store in the same round.',
    '',
    '| Store | Messages stored | Send req/s | Ratio to empty | Send p99 ms | List Messages first page | offset 10,000 | List Contacts first page | offset 10,000 |',
    '|---|---|---|---|---|---|---|---|---|',
    ...lines,
    '',
    ...checks,
    '',
    ...drainLines(results),
    ...(results.notes ?? []),
    ...(results.notes?.length ? [''] : []),
    'Raw figures: `bench/results/growth.json`.',
    '',
  ].join('\n');
}

const RESULTS = 'bench/results/growth.json';
if (args['docs-only']) {
  writeDocsSection('growth', docsSection(JSON.parse(readFileSync(RESULTS, 'utf8')) as Record<string, any>));
  process.exit(0);
}
const earlier = existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, 'utf8')) as Record<string, any>) : null;
const results: Record<string, any> =
  args['drain-only'] && earlier
    ? earlier
    : {
        date: new Date().toISOString().slice(0, 10),
        machine: machineFacts(),
        settings: { sizes: SIZES, seconds: SECONDS, requests: REQUESTS, rounds: ROUNDS },
        stores: {},
        // Notes on the figures are written by hand and kept from the earlier results file.
        notes: earlierNotes(RESULTS),
      };
const stores = (await benchStores()).filter((d) => !args.only || args.only === d);
if (!args['drain-only'])
  for (const dialect of stores) {
    results.stores[dialect] = await measureStore(dialect);
    process.stderr.write(`${dialect}: ${JSON.stringify(results.stores[dialect])}\n`);
  }
if (FINISHED > 0) {
  results.drainSettings = { date: new Date().toISOString().slice(0, 10), finished: FINISHED, events: DRAIN_EVENTS, machine: machineFacts() };
  results.drains = {};
  const smsKey = `live_bench${randomBytes(8).toString('hex')}`;
  const standInProcess = await startBenchProcess('bench/send-worker/standin.ts', { BENCH_SMS_KEY: smsKey });
  try {
    const standIn = new StandIn(String(standInProcess.info.url));
    for (const dialect of stores) results.drains[dialect] = await measureDrains(dialect, standIn, smsKey);
  } finally {
    await standInProcess.stop();
  }
}
mkdirSync('bench/results', { recursive: true });
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
if (!args['no-docs'] && !args.only) writeDocsSection('growth', docsSection(results));
process.stdout.write(`${docsSection(results)}\n`);
