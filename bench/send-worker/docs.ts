/** The "Send worker" section of docs/benchmarks.md, written from the results of bench/send-worker/run.ts. */

export const TARGETS = { drainPerSecond: 2000, p99LagMs: 200 };

const name = (d: string) => (d === 'sqlite' ? 'SQLite' : 'PostgreSQL');

/**
 * A lag ratio: the stand-in's delays are whole milliseconds (both ends read the wall clock), so a
 * limit under 1 ms is taken as 1 ms rather than dividing by zero.
 */
const lagRatio = (lag: number, limit: number) => (lag / Math.max(limit, 1)).toFixed(1);

function drainRows(d: string, store: any, earlierAlone: any): string[] {
  const alone = store.standInAlone ?? earlierAlone;
  const r = store.drain;
  const out: string[] = [];
  if (store.standInAlone) {
    const a = store.standInAlone;
    const arrived = a.failures === 0 && (a.arrived ?? a.calls) === a.calls ? 'all' : `${a.arrived ?? '?'} of ${a.calls} (${a.failures} refused)`;
    out.push(`| Stand-in alone before ${name(d)} | ${a.calls} | ${a.seconds} s | ${a.perSecond} | 1.00 | ${arrived} | — | ${a.loadAverage} |`);
  }
  if (r.error) return [...out, `| Parley on ${name(d)} | ${r.error} | | | | | | |`];
  const arrived = r.arrived === r.backlog && r.distinct === r.backlog ? 'all, once each' : `${r.distinct} of ${r.backlog} (${r.arrived} calls)`;
  const ratio = alone?.perSecond ? `**${(r.perSecond / alone.perSecond).toFixed(2)}**` : '?';
  out.push(
    `| Parley on ${name(d)} | ${r.backlog} | ${r.seconds} s | **${r.perSecond}** | ${ratio} | ${arrived} | ${r.serverCpuMsPerSms ?? '?'} ms | ${r.loadAverage} |`,
  );
  return out;
}

function lagRows(d: string, store: any): string[] {
  const out: string[] = [];
  const a = store.standInAtRate;
  if (a?.error) out.push(`| Stand-in alone before ${name(d)} | ${a.error} | | | | | | | | |`);
  else if (a)
    out.push(
      `| Stand-in alone before ${name(d)} | ${a.offeredRate}/s | ${a.sent - a.failures} of ${a.sent} | ${a.arrived} | ${a.delayMs.p50} ms | ${a.delayMs.p95} ms | ${a.delayMs.p99} ms | 1.0 | ${a.delayMs.max} ms | ${a.loadAverage} |`,
    );
  const r = store.lag;
  if (r.error) return [...out, `| Parley on ${name(d)} | ${r.error} | | | | | | | | |`];
  const ratio = a && !a.error ? `**${lagRatio(r.lagMs.p99, a.delayMs.p99)}**` : 'not measured';
  out.push(
    `| Parley on ${name(d)} | ${r.offeredRate}/s | ${r.accepted} of ${r.sent} | ${r.distinct} | ${r.lagMs.p50} ms | ${r.lagMs.p95} ms | **${r.lagMs.p99} ms** | ${ratio} | ${r.lagMs.max} ms | ${r.loadAverage} |`,
  );
  return out;
}

export function docsSection(results: Record<string, any>): string {
  const stores = (['sqlite', 'postgres'] as const).filter((d) => results.stores[d]);
  // Files written before the stand-in was measured before each store hold one measurement, made before both.
  const earlierAlone = results.standInAlone ?? null;
  const checks: string[] = [];
  for (const d of stores) {
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
  const s = results.settings;
  const m = results.machine;
  return [
    '## Send worker',
    '',
    `\`npm run bench -- send-worker\` (bench/send-worker/) — measured ${results.date} on ${m.cpus} cores (${m.cpuModel}), Node ${m.node}; load average ${m.loadAverageAtStart} at start.`,
    'Three processes on 127.0.0.1: the service (API and one send worker: 32 jobs at once, default settings), the',
    'smsprovider stand-in (sandbox/smsprovider, in a process of its own), and the load, which also reads the results.',
    "The channel is a production `mobile` channel with the stand-in's live key; each send job reads its message,",
    'calls `POST /messages` at the stand-in (JSON, our message id as `reference`) and marks the message sent. The',
    "throttle is off for the run: the benchmark's service process takes the mobile type's rate (30 SMS/s per",
    'channel) out of its definition before anything is queued, so the send jobs carry no rate.',
    '',
    `**Drain.** A backlog of ${s.backlog} queued sends (1000 contacts) is written through Send Message before the worker`,
    'starts; the rate is the number of SMS the stand-in took over the time from the first arrival to the last. Server',
    "CPU is the service process's CPU time over the drain per SMS (one core's worth is 1000 ms per second).",
    '',
    earlierAlone
      ? 'The limit is the stand-in alone, measured once before both stores in this run: the same calls straight from the load process, 32 at once, with no store, claim or queue. The ratio is Parley over it.'
      : "The limit is the stand-in alone, measured just before each store's drain: the same calls straight from the load process, 32 at once (the worker's jobs at once), over kept-alive connections, with no store, claim or queue, its rate taken as the drain's. The ratio is Parley over it.",
    '',
    '| Run | SMS | Time | SMS/s | Ratio to the stand-in alone | Arrived | Server CPU per SMS | Load average at start |',
    '|---|---|---|---|---|---|---|---|',
    ...(earlierAlone
      ? [
          `| Stand-in alone before both stores | ${earlierAlone.calls} | ${earlierAlone.seconds} s | ${earlierAlone.perSecond} | 1.00 | ${earlierAlone.failures} refused | — | — |`,
        ]
      : []),
    ...stores.flatMap((d) => drainRows(d, results.stores[d], earlierAlone)),
    '',
    `**Lag.** Send Message (text, the same channel) at a fixed offered rate, open loop, for ${s.seconds} s after a`,
    `${s.warmupSeconds} s warm-up. The lag of a message is its arrival at the stand-in minus its \`sent\` time, which is set`,
    'when the request is handled, just before the commit: it covers the commit, waking the worker, the claim,',
    'reading the message and the provider call.',
    '',
    ...(stores.some((d) => results.stores[d].standInAtRate)
      ? [
          "The limit is the stand-in alone at the same rate, measured just before each store's lag run: the same calls straight",
          "from the load process, open loop, for as long; its figure is a call's arrival at the stand-in minus the time just",
          'before it left the load process, the part of the lag that is the provider call. Both ends read the wall clock in',
          'whole milliseconds, so the ratio takes a limit under 1 ms as 1 ms.',
        ]
      : ['These figures were measured before the benchmark measured a limit for the lag (the stand-in alone at the same rate), so they have none.']),
    '',
    '| Run | Offered rate | Answered 201 | Arrived | p50 | p95 | p99 | p99 ratio to the stand-in alone | max | Load average at start |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...stores.flatMap((d) => lagRows(d, results.stores[d])),
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
