/**
 * Webhook delivery benchmark (`npm run bench -- webhooks`). For each store (SQLite, and
 * PostgreSQL when reachable) it runs the service in its own process (bench/webhooks/server.ts)
 * and, in this process, a local receiver on 127.0.0.1 and the load:
 *
 *  1. Throughput: a backlog of events is written before the worker starts; deliveries per second
 *     is the number of events over the time from the first to the last arrival.
 *  0. The limit: a bare sender (bench/webhooks/bare-sender.ts) makes the same signed calls to
 *     the same receiver with the same calls in flight, without store or queue. The bare sender
 *     and each store's throughput run alternate (bare, store, store, bare), so a drift of the
 *     machine's speed meets both alike; the throughput is reported as a ratio of the means.
 *  2. Lag: Send Message requests at a fixed offered rate (1000/s); the lag of each event is its
 *     arrival at the receiver minus its `timestamp` (taken in the send transaction, just before
 *     the commit), so it covers commit, wake-up, claim, signing and the HTTP call.
 *
 * Short and bounded; writes bench/results/webhooks.json and the Webhooks section of
 * docs/benchmarks.md. Options: --events N, --rate R, --seconds S, --only sqlite|postgres.
 */
import { loadavg } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import type { Dialect } from '../../test/helpers/databases.js';
import { BenchReceiver, cpuOfDrain, webhookDrain, withWebhookService } from './drain.js';
import { WEBHOOK_ENDPOINT_CONCURRENCY_DEFAULT } from '../../src/config.js';
import { openLoop } from '../shared/open-loop.js';
import {
  benchStores,
  cpuMs,
  machineFacts,
  percentile,
  PRODUCTION_NODE_FLAGS,
  SERVER_NODE_ARGS,
  startBenchProcess,
  writeDocsSection,
} from '../shared/process.js';
import { bundleServer } from '../shared/bundle.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    only: { type: 'string' },
    'endpoint-concurrency': { type: 'string' },
    /** The lag is also measured with this many calls at once to the receiver (0: skip). */
    'raised-concurrency': { type: 'string', default: '16' },
    'no-docs': { type: 'boolean', default: false },
    /** Rewrites the docs section from bench/results/webhooks.json without measuring. */
    'docs-only': { type: 'boolean', default: false },
  },
});
const EVENTS = Number(args.events);
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const WARMUP_SECONDS = Number(args.warmup);
/** Throughput as a share of the bare sender's, per store. */
const RATIO_TARGETS = { sqlite: 0.6, postgres: 0.4 };

/** The per-receiver ceiling given on the command line, if any. */
const concurrencyEnv = (): Record<string, string> => (args['endpoint-concurrency'] ? { WEBHOOK_ENDPOINT_CONCURRENCY: args['endpoint-concurrency'] } : {});

function throughput(dialect: Dialect): Promise<Record<string, unknown>> {
  return webhookDrain(dialect, EVENTS, concurrencyEnv());
}

/** The same calls without the service: what one receiver at this concurrency can take here. */
async function bareSender(): Promise<Record<string, unknown>> {
  const loadAverage = Math.round(loadavg()[0]! * 100) / 100;
  const receiver = new BenchReceiver();
  const url = await receiver.start();
  try {
    const concurrency = args['endpoint-concurrency'] ?? String(WEBHOOK_ENDPOINT_CONCURRENCY_DEFAULT);
    // Bundled with the same node flags as the service (drain.ts), so both run alike.
    const sender = await startBenchProcess(
      await bundleServer('bench/webhooks/bare-sender.ts'),
      { BENCH_RECEIVER_URL: url, BENCH_EVENTS: String(EVENTS), BENCH_CONCURRENCY: concurrency },
      [...PRODUCTION_NODE_FLAGS, ...SERVER_NODE_ARGS],
    );
    const cpu = cpuOfDrain(receiver, sender.child.pid);
    const complete = await receiver.waitForDistinct(EVENTS, 120_000);
    const seconds = (receiver.lastAt - receiver.firstAt) / 1000;
    const cpuUsPerDelivery = cpu.usPer(receiver.ids.size);
    const closing = await sender.stop();
    return {
      events: EVENTS,
      concurrency: Number(concurrency),
      delivered: receiver.ids.size,
      complete,
      seconds: Math.round(seconds * 100) / 100,
      perSecond: Math.round(receiver.ids.size / seconds),
      cpuUsPerDelivery,
      loadAverage,
      sender: closing,
    };
  } finally {
    await receiver.close();
  }
}

function lag(dialect: Dialect, extraEnv: Record<string, string> = {}): Promise<Record<string, unknown>> {
  return withWebhookService(dialect, { ...concurrencyEnv(), BENCH_BACKLOG: '0', ...extraEnv }, async ({ receiver, server, loadAverage }) => {
    const origin = `http://127.0.0.1:${server.info.port}`;
    const pool = new Pool(origin, { connections: 32, pipelining: 1, keepAliveTimeout: 30_000 });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${server.info.token}` };
    const channelId = server.info.channelIds[0]!;
    const statuses: Record<string, number> = {};
    let accepted = 0;
    const send = async (n: number) => {
      const body = JSON.stringify({
        channel: { id: channelId },
        contact: { phone_number: `+42060${String(1_000_000 + (n % 1000))}` },
        content: { type: 'text', payload: `lag ${n}` },
      });
      try {
        const res = await pool.request({ path: '/v1/messages', method: 'POST', headers, body });
        await res.body.dump();
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode === 201) accepted += 1;
      } catch {
        statuses.error = (statuses.error ?? 0) + 1;
      }
    };
    // Open loop: requests leave on a fixed schedule whatever the answers' latency.
    const total = RATE * (SECONDS + WARMUP_SECONDS);
    const cpuBefore = cpuMs(server.child.pid);
    receiver.measureFrom = Date.now() + WARMUP_SECONDS * 1000;
    const offeredSeconds = await openLoop(RATE, total, send);
    await receiver.waitForDistinct(accepted, 30_000);
    const cpuAfter = cpuMs(server.child.pid);
    await pool.close();
    const closing = await server.stop();
    if (process.env.BENCH_TIMELINE) {
      const start = receiver.timeline[0]?.[0] ?? 0;
      const buckets = new Map<number, number>();
      for (const [sent, lagMs] of receiver.timeline)
        buckets.set(Math.floor((sent - start) / 250), Math.max(buckets.get(Math.floor((sent - start) / 250)) ?? 0, lagMs));
      process.stderr.write(`max lag per 250 ms: ${[...buckets.values()].join(' ')}\n`);
    }
    const sorted = [...receiver.lags].sort((a, b) => a - b);
    return {
      offeredRate: RATE,
      achievedRate: Math.round(total / offeredSeconds),
      sent: total,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      statuses,
      accepted,
      delivered: receiver.ids.size,
      duplicates: receiver.duplicates,
      measured: sorted.length,
      lagMs: { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 },
      // The service's CPU time per event (the send and its delivery), microseconds.
      serverCpuUsPerEvent: cpuBefore === null || cpuAfter === null ? null : Math.round(((cpuAfter - cpuBefore) * 1000) / total),
      loadAverage,
      store: closing,
    };
  });
}

function docsSection(results: Record<string, any>): string {
  const name = (d: string) => (d === 'sqlite' ? 'SQLite' : 'PostgreSQL');
  const rows = (['sqlite', 'postgres'] as const).filter((d) => results.stores[d]);
  const mean = (runs: Array<{ perSecond: number }>) => runs.reduce((sum, r) => sum + r.perSecond, 0) / runs.length;
  const ratioOf = (d: string) => {
    const { throughput, bare } = results.stores[d] as { throughput: Array<{ perSecond: number }>; bare: Array<{ perSecond: number }> };
    return bare.length > 0 && mean(bare) > 0 ? mean(throughput) / mean(bare) : null;
  };
  const arrived = (r: any) => (r.delivered === r.events ? 'all' : `${r.delivered} of ${r.events}`);
  const t = rows.flatMap((d) => {
    const { throughput, bare } = results.stores[d];
    const base = bare.length > 0 ? mean(bare) : null;
    // In the order they ran: bare, Parley, Parley, bare.
    const runs = [
      { label: `Bare sender, before ${name(d)}`, run: bare[0], ours: false },
      ...throughput.map((run: any, i: number) => ({ label: `Parley on ${name(d)}, run ${i + 1}`, run, ours: true })),
      { label: `Bare sender, after ${name(d)}`, run: bare[1], ours: false },
    ].filter((r) => r.run);
    const rowsOut = runs.map(({ label, run, ours }) => {
      const ratio = base ? (run.perSecond / base).toFixed(2) : '?';
      const rate = ours ? `**${run.perSecond}**` : String(run.perSecond);
      return `| ${label} | ${run.events} | ${run.seconds} s | ${rate} | ${ratio} | ${run.cpuUsPerDelivery ?? '?'} | ${arrived(run)} | ${ours ? run.duplicates : 0} | ${run.loadAverage} |`;
    });
    const ratio = ratioOf(d);
    rowsOut.push(
      `| **${name(d)}: Parley's mean over the bare sender's** | | | **${Math.round(mean(throughput))}** | ${ratio === null ? '?' : `**${ratio.toFixed(2)}**`} | | | | |`,
    );
    return rowsOut;
  });
  const lagRow = (d: string, r: any, setting: string) => {
    if (r.error) return `| ${name(d)} | ${setting} | ${r.error} | | | | | | |`;
    return `| ${name(d)} | ${setting} | ${r.offeredRate}/s | ${r.accepted} of ${r.sent} | ${r.lagMs.p50} ms | ${r.lagMs.p90} ms | **${r.lagMs.p99} ms** | ${r.lagMs.max} ms | ${r.loadAverage} |`;
  };
  const l = rows.flatMap((d) => {
    const r = results.stores[d];
    const out = [lagRow(d, r.lag, results.settings.endpointConcurrency ?? `${WEBHOOK_ENDPOINT_CONCURRENCY_DEFAULT} (default)`)];
    if (r.lagRaisedConcurrency) out.push(lagRow(d, r.lagRaisedConcurrency, String(r.lagRaisedConcurrency.endpointConcurrency)));
    return out;
  });
  const checks: string[] = [];
  const sqlite = results.stores.sqlite;
  if (sqlite) {
    const rate = Math.round(mean(sqlite.throughput));
    checks.push(`- ${rate >= 3000 ? 'pass' : 'FAIL'}: SQLite at least 3000 deliveries/s (${rate}/s, the mean of its runs)`);
  }
  for (const d of rows) {
    const r = results.stores[d];
    const ratio = ratioOf(d);
    const minRatio = RATIO_TARGETS[d as keyof typeof RATIO_TARGETS];
    if (ratio !== null)
      checks.push(`- ${ratio >= minRatio ? 'pass' : 'FAIL'}: ${name(d)} at least ${minRatio} of the bare sender's deliveries/s (${ratio.toFixed(2)})`);
    if (!r.lag.error)
      checks.push(`- ${r.lag.lagMs.p99 <= 100 ? 'pass' : 'FAIL'}: ${name(d)} p99 lag at most 100 ms at ${r.lag.offeredRate} events/s (${r.lag.lagMs.p99} ms)`);
    const rc = r.lagRaisedConcurrency;
    // The second lag run is a comparison with another cap, not a target.
    if (rc && !rc.error)
      checks.push(
        `- ${name(d)} with WEBHOOK_ENDPOINT_CONCURRENCY=${rc.endpointConcurrency}, for comparison: p99 lag ${rc.lagMs.p99} ms at ${rc.offeredRate} events/s`,
      );
    checks.push(
      `- ${r.throughput.every((t: any) => t.delivered === t.events && t.duplicates === 0) && (r.lag.error || r.lag.delivered === r.lag.accepted) ? 'pass' : 'FAIL'}: ${name(d)} every event delivered, none twice in the throughput runs`,
    );
  }
  return [
    '## Webhooks',
    '',
    `\`npm run bench -- webhooks\` (bench/webhooks/) — measured ${results.date} on ${results.machine.cpus} cores (${results.machine.cpuModel}), Node ${results.machine.node}; load average ${results.machine.loadAverageAtStart} at start.`,
    'The service runs in its own process (API and the webhook worker, default settings: 128 calls in flight, at most 64 per',
    `receiver${results.settings.endpointConcurrency ? `; this run WEBHOOK_ENDPOINT_CONCURRENCY=${results.settings.endpointConcurrency}` : ''}); a second process holds the receiver (a plain Node HTTP server answering`,
    '200 on 127.0.0.1) and, for the lag, the Send Message load. Each call is signed (HMAC-SHA1 and HMAC-SHA256) and',
    "goes over a kept-alive connection; each try and the delivery's new state are written back.",
    '',
    '**Throughput.** A backlog of events is written before the worker starts; the rate is the number of events over',
    'the time from the first arrival to the last.',
    '',
    `The limit is a bare sender (bench/webhooks/bare-sender.ts): the same signed calls with the same number in flight to`,
    `the same receiver (${results.settings.endpointConcurrency ?? WEBHOOK_ENDPOINT_CONCURRENCY_DEFAULT}, the cap per receiver), over kept-alive connections, with no store, claim or queue.`,
    "The runs alternate (bare sender, Parley, Parley, bare sender), so a drift of this shared machine's speed meets both",
    "alike; the ratio is the mean of Parley's runs over the mean of the bare sender's. CPU is the sending process's",
    '(the service, or the bare sender) from the first arrival to the last, per delivery: a drift of the machine moves it',
    'less than the rate.',
    '',
    '| Run | Events | Time | Deliveries/s | Ratio to the bare sender | CPU µs/delivery | Arrived | Duplicates | Load average at start |',
    '|---|---|---|---|---|---|---|---|---|',
    ...t,
    '',
    `**Lag.** Send Message (text, test-mode mobile channel) at a fixed offered rate, open loop, for ${results.settings.seconds} s after a`,
    `${results.settings.warmupSeconds} s warm-up. The lag of an event is its arrival at the receiver minus its \`timestamp\`, which is set in the send`,
    'transaction just before the commit: it covers the commit, waking the worker, the claim, signing and the HTTP call.',
    '',
    '| Store | Calls at once per receiver | Offered rate | Sends answered 201 | p50 | p90 | p99 | max | Load average at start |',
    '|---|---|---|---|---|---|---|---|---|',
    ...l,
    '',
    'One receiver gets at most `WEBHOOK_ENDPOINT_CONCURRENCY` calls at once, so its rate is bounded by that number',
    'over the round trip of a call. Here the service, PostgreSQL, the load and the receiver share two cores, and the',
    'round trip grows with everything else the machine does. The limit of each receiver starts at 4 calls and grows',
    'while the receiver answers well, up to the setting: on a slower machine, 16 calls at once (the default before 64)',
    'fell behind 1000 events/s to one receiver on SQLite, whose event loop also runs the writes and the claims, and the',
    'lag built up to seconds. The second row of each store shows the same load with that earlier cap of 16.',
    '',
    `Targets on this 2-core machine: at least 3000 deliveries/s on SQLite, and at least ${RATIO_TARGETS.sqlite} (SQLite) and ${RATIO_TARGETS.postgres}`,
    "(PostgreSQL) of the bare sender's rate; p99 lag at most 100 ms at 1000 events/s.",
    '',
    ...checks,
    '',
    'How the worker gets there:',
    '',
    "- A claim is one statement that picks the earliest due rows (of one channel at most its receiver's cap, and at least 32), leases them and returns",
    '  them with their event bodies; on PostgreSQL it locks them with `FOR UPDATE SKIP LOCKED`. On SQLite the',
    "  statements are prepared once and run on the raw connection while holding the store's connection.",
    "- Results are written back in batches: the tries and the rows' new states of everything that ended meanwhile, in",
    '  one transaction (SQLite) or one statement (PostgreSQL, committed without waiting for the WAL flush: losing',
    '  one in a database crash only means a delivery is sent again).',
    '- New events wake the worker at once (in process, or by `NOTIFY` from API-only processes); claimed rows wait',
    '  in memory for a slot of their receiver, so a fast receiver never waits for the next claim.',
    '',
    'Raw figures: `bench/results/webhooks.json`. The machine is shared: a load average above 1 means other work ran',
    'during the measurement, which lowers every figure.',
    '',
  ].join('\n');
}

if (args['docs-only']) {
  writeDocsSection('webhooks', docsSection(JSON.parse(readFileSync('bench/results/webhooks.json', 'utf8')) as Record<string, any>));
  process.exit(0);
}

const stores = await benchStores();
const results: Record<string, any> = {
  date: new Date().toISOString().slice(0, 10),
  machine: machineFacts(),
  settings: { events: EVENTS, rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, endpointConcurrency: args['endpoint-concurrency'] ?? null },
  stores: {},
};
for (const dialect of stores) {
  if (args.only && args.only !== dialect) continue;
  // Alternating, as the send benchmark's slices: bare, Parley, Parley, bare.
  const bare: Array<Record<string, unknown>> = [];
  const t: Array<Record<string, unknown>> = [];
  for (const step of ['bare', 'store', 'store', 'bare'] as const) {
    process.stderr.write(`${dialect}: ${step === 'bare' ? 'bare sender' : 'throughput'} (${EVENTS} events)...\n`);
    const run = step === 'bare' ? await bareSender() : await throughput(dialect);
    (step === 'bare' ? bare : t).push(run);
    process.stderr.write(`${dialect}: ${JSON.stringify(run)}\n`);
  }
  process.stderr.write(`${dialect}: lag at ${RATE}/s for ${SECONDS} s...\n`);
  const measureLag = async (env: Record<string, string> = {}) => {
    try {
      return await lag(dialect, env);
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };
  const l = await measureLag();
  process.stderr.write(`${dialect}: ${JSON.stringify(l)}\n`);
  const raised = Number(args['raised-concurrency']);
  let lr: Record<string, unknown> | null = null;
  if (raised > 0) {
    process.stderr.write(`${dialect}: lag with WEBHOOK_ENDPOINT_CONCURRENCY=${raised}...\n`);
    lr = await measureLag({ WEBHOOK_ENDPOINT_CONCURRENCY: String(raised) });
    process.stderr.write(`${dialect}: ${JSON.stringify(lr)}\n`);
  }
  results.stores[dialect] = { bare, throughput: t, lag: l, lagRaisedConcurrency: lr ? { endpointConcurrency: raised, ...lr } : null };
}
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/webhooks.json', `${JSON.stringify(results, null, 2)}\n`);
if (!args['no-docs'] && !args.only) writeDocsSection('webhooks', docsSection(results));
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
