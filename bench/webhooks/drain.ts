/**
 * The webhook drain, shared by the webhook benchmark and the cost-growth benchmark: the service
 * (bench/webhooks/server.ts) on a fresh store writes a backlog of `events` events before its
 * worker starts; deliveries per second is their number over the time from the first arrival at
 * the receiver (in this process) to the last.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { createTestDatabase, type Dialect } from '../../test/helpers/databases.js';
import { cpuMs, PRODUCTION_NODE_FLAGS, SERVER_NODE_ARGS, startBenchProcess, type BenchProcess } from '../shared/process.js';
import { bundleServer } from '../shared/bundle.js';
import { waitUntil } from '../shared/wait-for.js';

export /** Counts arrivals and measures lag from each body's timestamp. */
class BenchReceiver {
  readonly ids = new Set<string>();
  duplicates = 0;
  firstAt = 0;
  lastAt = 0;
  lags: number[] = [];
  /** [event timestamp, lag] pairs, for BENCH_TIMELINE=1. */
  timeline: Array<[number, number]> = [];
  measureFrom = Infinity;
  /** Called once, at the first arrival (where a drain's CPU count starts). */
  onFirst: (() => void) | null = null;
  private waiters: Array<() => void> = [];
  private readonly server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      const id = String(req.headers['x-parley-event-id']);
      if (this.ids.has(id)) this.duplicates += 1;
      else this.ids.add(id);
      if (this.firstAt === 0) {
        this.firstAt = performance.now();
        this.onFirst?.();
      }
      this.lastAt = performance.now();
      if (this.measureFrom !== Infinity) {
        const sent = Date.parse((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string }).timestamp);
        if (sent >= this.measureFrom) this.lags.push(now - sent);
        if (process.env.BENCH_TIMELINE) this.timeline.push([sent, now - sent]);
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      for (const w of this.waiters.splice(0)) w();
    });
  });

  async start(): Promise<string> {
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  waitForDistinct(n: number, timeoutMs: number): Promise<boolean> {
    return waitUntil(() => this.ids.size >= n, this.waiters, timeoutMs);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export interface ServerInfo {
  port: number;
  token: string;
  channelIds: string[];
}

export interface WebhookService {
  receiver: BenchReceiver;
  server: BenchProcess<ServerInfo>;
  /** The machine's load average when the run began. */
  loadAverage: number;
}

/**
 * The webhook bench's service on a fresh database, delivering to a fresh receiver, for the run
 * `body` makes; `env` is added to the server's (BENCH_BACKLOG, BENCH_FINISHED, WEBHOOK_*).
 */
export async function withWebhookService<T>(dialect: Dialect, env: Record<string, string>, body: (service: WebhookService) => Promise<T>): Promise<T> {
  const loadAverage = Math.round(loadavg()[0]! * 100) / 100;
  const receiver = new BenchReceiver();
  const url = await receiver.start();
  const db = await createTestDatabase(dialect);
  try {
    // Bundled and with production's node flags: the service as `npm start` runs it, not under tsx.
    const server = await startBenchProcess<ServerInfo>(
      await bundleServer('bench/webhooks/server.ts'),
      { BENCH_DATABASE_URL: db.url, BENCH_DATA_DIR: db.dataDir, BENCH_RECEIVER_URL: url, ...env },
      [...PRODUCTION_NODE_FLAGS, ...SERVER_NODE_ARGS],
    );
    return await body({ receiver, server, loadAverage });
  } finally {
    await receiver.close();
    await db.drop();
  }
}

/** A backlog of `events` delivered from a standing start: how fast the worker drains it. */
export function webhookDrain(dialect: Dialect, events: number, env: Record<string, string>): Promise<Record<string, unknown>> {
  return withWebhookService(dialect, { BENCH_BACKLOG: String(events), ...env }, async ({ receiver, server, loadAverage }) => {
    const cpu = cpuOfDrain(receiver, server.child.pid);
    const complete = await receiver.waitForDistinct(events, 120_000);
    const seconds = (receiver.lastAt - receiver.firstAt) / 1000;
    const cpuUsPerDelivery = cpu.usPer(receiver.ids.size);
    const closing = await server.stop();
    return {
      events: events,
      delivered: receiver.ids.size,
      complete,
      duplicates: receiver.duplicates,
      seconds: Math.round(seconds * 100) / 100,
      perSecond: Math.round(receiver.ids.size / seconds),
      cpuUsPerDelivery,
      loadAverage,
      store: closing,
    };
  });
}

/**
 * The CPU a sending process (the service, or the bare sender) uses from the first arrival at the
 * receiver on: per delivery, a figure that a drift of the machine's speed moves less than the rate.
 */
export function cpuOfDrain(receiver: BenchReceiver, pid: number | undefined): { usPer(deliveries: number): number | null } {
  // Deliveries may have begun before the process's ready line was read: count from now then.
  let start = receiver.firstAt === 0 ? null : cpuMs(pid);
  receiver.onFirst = () => {
    start = cpuMs(pid);
  };
  return {
    usPer(deliveries) {
      const end = cpuMs(pid);
      return start === null || end === null || deliveries === 0 ? null : Math.round(((end - start) * 1000) / deliveries);
    },
  };
}
