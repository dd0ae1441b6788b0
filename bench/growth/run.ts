/**
 * Cost growth benchmark (`npm run bench -- growth [--sizes 0,1000000,10000000] [--only sqlite|postgres]`).
 * For each store and each number of messages already stored (bench/growth/server.ts seeds them):
 *  - List Messages of one contact with 50,000 messages and List Contacts of the channel (up to
 *    100,000 contacts): first page and offset 10,000, `max=100`, one request at a time from a
 *    second process's connection, p50/p99;
 *  - Send Message at 50 connections (the Send Message benchmark's load), requests/s and p99, as a
 *    ratio to the same store when empty (target: at least 0.9).
 * Writes bench/results/growth.json and the "Cost growth" section of docs/benchmarks.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { createTestDatabase, type Dialect } from '../../test/helpers/databases.js';
import { benchStores, cpuMs, machineFacts, percentile, startBenchProcess, writeDocsSection } from '../shared/process.js';
import type { LoadResult } from '../send/load.js';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '0,1000000' },
    only: { type: 'string' },
    seconds: { type: 'string', default: '8' },
    requests: { type: 'string', default: '300' },
    'no-docs': { type: 'boolean', default: false },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const SECONDS = Number(args.seconds);
const REQUESTS = Number(args.requests);
const TARGETS = { sendRatio: 0.9, sqliteFirstPageP99Ms: 10 };

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

async function measure(dialect: Dialect, messages: number): Promise<Record<string, unknown>> {
  const db = await createTestDatabase(dialect);
  try {
    const server = await startBenchProcess<Ready>('bench/growth/server.ts', {
      BENCH_DATABASE_URL: db.url,
      BENCH_DATA_DIR: db.dataDir,
      BENCH_MESSAGES: String(messages),
    });
    const { port, token, channelId, deepContactId, contacts, seedSeconds } = server.info;
    const origin = `http://127.0.0.1:${port}`;
    const lists: Record<string, unknown> = {};
    if (deepContactId) {
      const messagesPath = `/v1/channels/${channelId}/contacts/${deepContactId}/messages?max=100`;
      lists.messagesFirstPage = await reads(origin, token, messagesPath);
      lists.messagesOffset10000 = await reads(origin, token, `${messagesPath}&offset=10000`);
      lists.contactsFirstPage = await reads(origin, token, `/v1/channels/${channelId}/contacts?max=100`);
      lists.contactsOffset10000 = await reads(origin, token, `/v1/channels/${channelId}/contacts?max=100&offset=10000`);
    }
    const cpuBefore = cpuMs(server.child.pid);
    const send = await load(origin, token, channelId);
    const cpuAfter = cpuMs(server.child.pid);
    const closing = await server.stop();
    return {
      messages,
      contacts,
      seedSeconds,
      lists,
      send: { rps: send.rps, p50: send.latencyMs.p50, p99: send.latencyMs.p99, statuses: send.statuses, errors: send.errors, created: send.created },
      serverCpuMs: cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null,
      stored: closing.stored,
    };
  } finally {
    await db.drop();
  }
}

function docsSection(results: Record<string, any>): string {
  const name = (d: string) => (d === 'sqlite' ? 'SQLite' : 'PostgreSQL');
  const lines: string[] = [];
  const checks: string[] = [];
  for (const [d, runs] of Object.entries(results.stores as Record<string, any[]>)) {
    const empty = runs.find((r) => r.messages === 0);
    for (const r of runs) {
      const ratio = empty ? r.send.rps / empty.send.rps : null;
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
    `\`npm run bench -- growth --sizes ${SIZES.join(',')}\` (bench/growth/) — measured ${results.date} on ${results.machine.cpus} cores (${results.machine.cpuModel}), Node ${results.machine.node}; load average ${results.machine.loadAverageAtStart} at start.`,
    'Each row is a fresh store holding that many messages in one channel (written with SQL set statements before the',
    'service listens; up to 100,000 contacts, one of them with 50,000 messages), then: List Messages of that contact and',
    `List Contacts of the channel, \`max=100\`, first page and \`offset=10000\`, ${REQUESTS} requests one at a time (p50 / p99 in ms);`,
    `then Send Message at 50 connections for ${SECONDS} s after a 2 s warm-up, as a ratio to the same store when empty.`,
    '',
    '| Store | Messages stored | Send req/s | Ratio to empty | Send p99 ms | List Messages first page | offset 10,000 | List Contacts first page | offset 10,000 |',
    '|---|---|---|---|---|---|---|---|---|',
    ...lines,
    '',
    ...checks,
    '',
    'Raw figures: `bench/results/growth.json`.',
    '',
  ].join('\n');
}

const results: Record<string, any> = {
  date: new Date().toISOString().slice(0, 10),
  machine: machineFacts(),
  settings: { sizes: SIZES, seconds: SECONDS, requests: REQUESTS },
  stores: {},
};
for (const dialect of await benchStores()) {
  if (args.only && args.only !== dialect) continue;
  results.stores[dialect] = [];
  for (const size of SIZES) {
    process.stderr.write(`${dialect}: ${size} messages stored...\n`);
    const r = await measure(dialect, size);
    process.stderr.write(`${dialect}: ${JSON.stringify(r)}\n`);
    results.stores[dialect].push(r);
  }
}
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/growth.json', `${JSON.stringify(results, null, 2)}\n`);
if (!args['no-docs']) writeDocsSection('growth', docsSection(results));
process.stdout.write(`${docsSection(results)}\n`);
