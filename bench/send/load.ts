/**
 * The load generator of the Send Message benchmark, run as its own process so it does not share
 * the event loop of the server it measures. Bounded in time and in requests; 127.0.0.1 only.
 * Input: one JSON argument, a LoadSpec (one target, one run) or a SlicedSpec (several targets
 * measured in turns). Output: one JSON line on stdout, a LoadResult or a SlicedResult.
 */
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

/** Where the requests go: one endpoint, its headers and the bodies used in turn. */
export interface LoadTarget {
  origin: string;
  path: string;
  headers: Record<string, string>;
  bodies: string[];
}

export interface LoadSpec extends LoadTarget {
  connections: number;
  warmupMs: number;
  durationMs: number;
  maxRequests: number;
}

/**
 * Several servers measured in short turns (slices) of the same length, one at a time, in the order
 * A B B A A B ... so that a machine whose speed drifts during the run gives each the same share
 * of its fast and slow moments: their ratio is then a comparison made under the same conditions.
 * A pause follows each slice, so work a server defers (checkpoints, collection) ends before
 * the next one is measured; the CPU each server uses outside its own slices is reported.
 */
export interface SlicedSpec {
  targets: Array<LoadTarget & { /** The server's process, for its CPU time (Linux). */ pid?: number }>;
  connections: number;
  /** Warm-up per target before the first slice, not counted. */
  warmupMs: number;
  /** Measured time per target, split into slices of `sliceMs`. */
  durationMs: number;
  sliceMs: number;
  pauseMs: number;
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

export interface SlicedTargetResult extends LoadResult {
  slices: number;
  /** The server's CPU time per request in its own slices, microseconds (null without a pid). */
  cpuUsPerRequest: number | null;
  /** The server's CPU time while it had no load (the others' slices and every pause), ms per second. */
  idleCpuMsPerSecond: number | null;
  /** The share of the machine's CPU time left idle during this target's slices (0 to 1). */
  machineIdle: number | null;
}

export interface SlicedResult {
  targets: SlicedTargetResult[];
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[Math.max(i, 0)]! * 1000) / 1000;
}

/** CPU time a process has used so far (user + system, Linux), in microseconds. */
function cpuMicros(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}

/** Idle and total CPU time of the whole machine so far (Linux), in clock ticks. */
function machineTicks(): { idle: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    // idle and iowait
    return { idle: fields[3]! + fields[4]!, total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

/** One target's pool and what was measured against it so far. */
class Driver {
  private readonly pool: Pool;
  private readonly headers: Record<string, string>;
  private next = 0;
  created = 0;
  count = 0;
  errors = 0;
  seconds = 0;
  readonly statuses: Record<string, number> = {};
  readonly latencies: Float64Array;

  constructor(
    private readonly target: LoadTarget,
    connections: number,
    maxRequests: number,
  ) {
    const url = new URL(target.origin);
    if (url.hostname !== '127.0.0.1') throw new Error('the load generator only targets 127.0.0.1');
    this.pool = new Pool(target.origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
    this.headers = { 'content-type': 'application/json', ...target.headers };
    this.latencies = new Float64Array(maxRequests);
  }

  private async fire(): Promise<number> {
    const body = this.target.bodies[this.next++ % this.target.bodies.length]!;
    const res = await this.pool.request({ origin: this.target.origin, path: this.target.path, method: 'POST', headers: this.headers, body });
    await res.body.dump();
    if (res.statusCode === 201) this.created += 1;
    return res.statusCode;
  }

  /** The load, not counted (JIT, caches, first contacts). */
  async warm(ms: number, connections: number): Promise<void> {
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) await this.fire().catch(() => 0);
      }),
    );
  }

  /** `ms` of load on every connection, each request counted; a request under way at the end finishes. */
  async measure(ms: number, connections: number): Promise<void> {
    const start = performance.now();
    const end = start + ms;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (this.count < this.latencies.length && performance.now() < end) {
          const t0 = performance.now();
          try {
            const status = await this.fire();
            this.statuses[status] = (this.statuses[status] ?? 0) + 1;
          } catch {
            this.errors += 1;
          }
          if (this.count < this.latencies.length) this.latencies[this.count++] = performance.now() - t0;
        }
      }),
    );
    this.seconds += (performance.now() - start) / 1000;
  }

  result(): LoadResult {
    const sorted = this.latencies.subarray(0, this.count).sort();
    return {
      requests: this.count,
      seconds: Math.round(this.seconds * 1000) / 1000,
      rps: Math.round(this.count / this.seconds),
      latencyMs: { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: percentile(sorted, 100) },
      statuses: this.statuses,
      errors: this.errors,
      created: this.created,
    };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const driver = new Driver(spec, spec.connections, spec.maxRequests);
  await driver.warm(spec.warmupMs, spec.connections);
  await driver.measure(spec.durationMs, spec.connections);
  await driver.close();
  return driver.result();
}

async function runSliced(spec: SlicedSpec): Promise<SlicedResult> {
  const drivers = spec.targets.map((t) => new Driver(t, spec.connections, spec.maxRequests));
  for (const d of drivers) await d.warm(spec.warmupMs, spec.connections);
  const slices = Math.max(1, Math.round(spec.durationMs / spec.sliceMs));
  const ownCpu = spec.targets.map(() => 0);
  const idle = spec.targets.map(() => ({ idle: 0, total: 0 }));
  const started = performance.now();
  const cpuAtStart = spec.targets.map((t) => cpuMicros(t.pid));
  for (let s = 0; s < slices; s++) {
    const order = s % 2 === 0 ? drivers.map((_, i) => i) : drivers.map((_, i) => drivers.length - 1 - i);
    for (const i of order) {
      const before = cpuMicros(spec.targets[i]!.pid);
      const ticksBefore = machineTicks();
      await drivers[i]!.measure(spec.sliceMs, spec.connections);
      const ticksAfter = machineTicks();
      const after = cpuMicros(spec.targets[i]!.pid);
      if (before !== null && after !== null) ownCpu[i]! += after - before;
      if (ticksBefore && ticksAfter) {
        idle[i]!.idle += ticksAfter.idle - ticksBefore.idle;
        idle[i]!.total += ticksAfter.total - ticksBefore.total;
      }
      await new Promise((r) => setTimeout(r, spec.pauseMs));
    }
  }
  const elapsedS = (performance.now() - started) / 1000;
  const targets = drivers.map((d, i): SlicedTargetResult => {
    const result = d.result();
    const start = cpuAtStart[i] ?? null;
    const end = cpuMicros(spec.targets[i]!.pid);
    const unloadedS = elapsedS - d.seconds;
    return {
      ...result,
      slices,
      cpuUsPerRequest: start !== null && end !== null && d.count > 0 ? Math.round((ownCpu[i]! / d.count) * 10) / 10 : null,
      idleCpuMsPerSecond: start !== null && end !== null ? Math.round(((end - start - ownCpu[i]!) / 1000 / unloadedS) * 10) / 10 : null,
      machineIdle: idle[i]!.total > 0 ? Math.round((idle[i]!.idle / idle[i]!.total) * 100) / 100 : null,
    };
  });
  await Promise.all(drivers.map((d) => d.close()));
  return { targets };
}

const arg = process.argv[2];
if (!arg) {
  process.stderr.write('usage: load.ts <LoadSpec or SlicedSpec JSON>\n');
  process.exit(2);
}
const spec = JSON.parse(arg) as LoadSpec | SlicedSpec;
('targets' in spec ? runSliced(spec) : run(spec)).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  },
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
