/**
 * What the benchmarks share: the service (or a stand-in) in a process of its own that prints a
 * JSON ready line and, on SIGTERM, a JSON closing line; its CPU time; percentiles; and their
 * sections of docs/benchmarks.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { cpus, loadavg, totalmem } from 'node:os';
import { postgresAvailable, type Dialect } from '../../test/helpers/databases.js';

export interface BenchProcess<Info> {
  child: ChildProcess;
  /** The ready line. */
  info: Info;
  /** Writes one command line on the process's stdin and answers the next line it prints. */
  ask(command: string): Promise<Record<string, unknown>>;
  /** Sends SIGTERM and answers the closing line (empty when there was none). */
  stop(): Promise<Record<string, unknown>>;
}

/** node's flags for the service as `npm start` and bin/parley.js run it (a young generation that fits a burst's garbage). */
export const PRODUCTION_NODE_FLAGS = ['--max-semi-space-size=32'];

/** BENCH_SERVER_NODE_ARGS (e.g. `--cpu-prof`): node's arguments for the service's process. */
export const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a.length > 0);

/**
 * Starts `script` (a path from the project's root; TypeScript through tsx, a bundle as it is)
 * and waits for its ready line.
 */
export async function startBenchProcess<Info = Record<string, unknown>>(
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<BenchProcess<Info>> {
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...nodeArgs, ...loader, script], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error(`${script} exited before it was ready`);
  return {
    child,
    info: JSON.parse(first.value) as Info,
    ask: async (command) => {
      child.stdin!.write(`${command}\n`);
      const answer = await lines.next();
      if (answer.done) throw new Error(`${script} exited before it answered ${command}`);
      return JSON.parse(answer.value) as Record<string, unknown>;
    },
    stop: async () => {
      child.kill('SIGTERM');
      const last = await lines.next();
      return last.done ? {} : (JSON.parse(last.value) as Record<string, unknown>);
    },
  };
}

/** CPU time a process has used so far (user + system, Linux), in ms; null elsewhere. */
export function cpuMs(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** The value at percentile `p` of values sorted ascending (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Replaces (or appends) a benchmark's section of docs/benchmarks.md between its markers, leaving the others as they are. */
export function writeDocsSection(name: string, section: string): void {
  const path = 'docs/benchmarks.md';
  const begin = `<!-- bench:${name}:begin -->`;
  const end = `<!-- bench:${name}:end -->`;
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  const block = `${begin}\n${section.trimEnd()}\n${end}`;
  const start = current.indexOf(begin);
  const stop = current.indexOf(end);
  const next = start !== -1 && stop > start ? current.slice(0, start) + block + current.slice(stop + end.length) : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(path, next.endsWith('\n') ? next : `${next}\n`);
}

/** The stores to measure: SQLite, and PostgreSQL when it is reachable (said on stderr when not). */
export async function benchStores(): Promise<Dialect[]> {
  if (await postgresAvailable()) return ['sqlite', 'postgres'];
  process.stderr.write('PostgreSQL is not reachable; measuring SQLite only.\n');
  return ['sqlite'];
}

/** The machine a run measured on, as every results file records it. */
export function machineFacts(): Record<string, unknown> {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAverageAtStart: Math.round(loadavg()[0]! * 100) / 100,
  };
}

/** Notes on the figures, written by hand into a results file and kept by the next run. */
export function earlierNotes(resultsPath: string): string[] {
  return existsSync(resultsPath) ? ((JSON.parse(readFileSync(resultsPath, 'utf8')) as { notes?: string[] }).notes ?? []) : [];
}
