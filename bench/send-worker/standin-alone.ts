/**
 * The stand-in alone: the send-worker benchmark's same-run limits. The connector's call (a JSON
 * POST /messages with a reference) goes straight from the load process to the smsprovider
 * stand-in, with no store, claim or queue; each is measured just before the store's run it is
 * the limit of.
 *
 *  - standInDrain: `calls` calls, 32 at once (the worker's jobs at once), over kept-alive
 *    connections; the rate is taken as the drain's: calls taken over the time from the first
 *    arrival at the stand-in to the last.
 *  - standInAtRate: calls at a fixed offered rate, open loop, as the lag run sends; the delay of a
 *    call is its arrival at the stand-in minus the time just before it left, so it is the part of
 *    the lag that is the provider call's.
 */
import { loadavg } from 'node:os';
import { Pool } from 'undici';
import type { StandIn } from './drain.js';
import { openLoop } from '../shared/open-loop.js';
import { percentile } from '../shared/process.js';

/** As many connections and calls at once as the send worker's jobs at once. */
const AT_ONCE = 32;

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The call the mobile connector makes for message `n`, with `reference` as our message id. */
function providerCall(smsKey: string, n: number, reference: string) {
  return {
    path: '/messages',
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', authorization: `AccessKey ${smsKey}` },
    body: JSON.stringify({
      originator: 'Parley',
      recipients: [`42060${String(1_000_000 + (n % 1000))}`],
      body: `Your code is ${String(100_000 + n)}.`,
      reference,
      datacoding: 'auto',
      reportUrl: 'http://127.0.0.1/v1/inbound/1/status',
    }),
  };
}

/** `calls` calls, AT_ONCE at a time: the rate the drain is compared with. */
export async function standInDrain(standIn: StandIn, smsKey: string, calls: number): Promise<Record<string, unknown>> {
  const loadAverage = round2(loadavg()[0]!);
  await standIn.reset();
  const pool = new Pool(standIn.url, { connections: AT_ONCE, pipelining: 1 });
  let next = 0;
  let failures = 0;
  try {
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (next < calls) {
          const n = next++;
          const res = await pool.request(providerCall(smsKey, n, String(n + 1)));
          await res.body.dump();
          if (res.statusCode !== 201) failures += 1;
        }
      }),
    );
  } finally {
    await pool.close();
  }
  const a = await standIn.arrivals();
  await standIn.reset();
  const seconds = (a.lastAt - a.firstAt) / 1000;
  return {
    calls,
    failures,
    arrived: a.count,
    seconds: round2(seconds),
    perSecond: seconds > 0 ? Math.round(a.count / seconds) : 0,
    loadAverage,
  };
}

/** Calls at `rate` per second for `warmupSeconds` + `seconds`: the delay the lag is compared with. */
export async function standInAtRate(standIn: StandIn, smsKey: string, rate: number, seconds: number, warmupSeconds: number): Promise<Record<string, unknown>> {
  const loadAverage = round2(loadavg()[0]!);
  await standIn.reset();
  const pool = new Pool(standIn.url, { connections: AT_ONCE, pipelining: 1, keepAliveTimeout: 30_000 });
  /** When each call after the warm-up left, by its reference. */
  const leftAt = new Map<string, number>();
  const warmupCalls = rate * warmupSeconds;
  const total = rate * (seconds + warmupSeconds);
  let failures = 0;
  let offeredSeconds: number;
  try {
    offeredSeconds = await openLoop(rate, total, async (n) => {
      const reference = `alone-${String(n)}`;
      if (n >= warmupCalls) leftAt.set(reference, Date.now());
      try {
        const res = await pool.request(providerCall(smsKey, n, reference));
        await res.body.dump();
        if (res.statusCode !== 201) failures += 1;
      } catch {
        failures += 1;
      }
    });
  } finally {
    await pool.close();
  }
  const a = await standIn.arrivals(true);
  await standIn.reset();
  const delays: number[] = [];
  for (const [reference, at] of leftAt) {
    const arrived = a.references?.[reference];
    if (arrived !== undefined) delays.push(arrived - at);
  }
  delays.sort((x, y) => x - y);
  return {
    offeredRate: rate,
    achievedRate: Math.round(total / offeredSeconds),
    sent: total,
    failures,
    arrived: a.count,
    measured: delays.length,
    missing: leftAt.size - delays.length,
    delayMs: { p50: percentile(delays, 50), p95: percentile(delays, 95), p99: percentile(delays, 99), max: delays.at(-1) ?? 0 },
    loadAverage,
  };
}
