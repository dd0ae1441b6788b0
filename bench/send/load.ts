/**
 * The load generator of the Send Message benchmark, run as its own process so it does not share
 * the event loop of the server it measures. Bounded in time and in requests; 127.0.0.1 only.
 * Input: one JSON argument (LoadSpec). Output: one JSON line (LoadResult) on stdout.
 */
import { Pool } from 'undici';

export interface LoadSpec {
  origin: string;
  path: string;
  headers: Record<string, string>;
  /** Request bodies, used in turn. */
  bodies: string[];
  connections: number;
  warmupMs: number;
  durationMs: number;
  maxRequests: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  statuses: Record<string, number>;
  errors: number;
  /** 201 answers over warm-up and measurement: what the store must hold afterwards. */
  created: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[Math.max(i, 0)]! * 1000) / 1000;
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const url = new URL(spec.origin);
  if (url.hostname !== '127.0.0.1') throw new Error('the load generator only targets 127.0.0.1');
  const pool = new Pool(spec.origin, { connections: spec.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const headers = { 'content-type': 'application/json', ...spec.headers };
  let next = 0;
  let created = 0;
  const fire = async (): Promise<number> => {
    const body = spec.bodies[next++ % spec.bodies.length]!;
    const res = await pool.request({ origin: spec.origin, path: spec.path, method: 'POST', headers, body });
    await res.body.dump();
    if (res.statusCode === 201) created += 1;
    return res.statusCode;
  };

  // Warm-up: the same load, not counted (JIT, caches, first contacts).
  const warmEnd = performance.now() + spec.warmupMs;
  await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      while (performance.now() < warmEnd) await fire().catch(() => 0);
    }),
  );

  const latencies = new Float64Array(spec.maxRequests);
  const statuses: Record<string, number> = {};
  let count = 0;
  let errors = 0;
  const start = performance.now();
  const end = start + spec.durationMs;
  await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      while (count < spec.maxRequests && performance.now() < end) {
        const t0 = performance.now();
        try {
          const status = await fire();
          statuses[status] = (statuses[status] ?? 0) + 1;
        } catch {
          errors += 1;
        }
        if (count < spec.maxRequests) latencies[count++] = performance.now() - t0;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await pool.close();
  const sorted = latencies.subarray(0, count).sort();
  return {
    requests: count,
    seconds: Math.round(seconds * 1000) / 1000,
    rps: Math.round(count / seconds),
    latencyMs: { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: percentile(sorted, 100) },
    statuses,
    errors,
    created,
  };
}

const arg = process.argv[2];
if (!arg) {
  process.stderr.write('usage: load.ts <LoadSpec JSON>\n');
  process.exit(2);
}
run(JSON.parse(arg) as LoadSpec).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  },
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
