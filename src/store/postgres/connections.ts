import pg from 'pg';
import { DEFAULT_POOL_SIZE } from '../database-url.js';
import { listen } from './listen.js';

/**
 * Every PostgreSQL connection one process opens, and so the whole connection budget of the
 * process (docs/configuration.md, "Connections to PostgreSQL"):
 *
 * - the query pool, `poolSize - 1` connections (DATABASE_POOL_SIZE counts the lease's too): reads
 *   and writes of the API, the group-commit writer, NOTIFY, and the queries of the chat cluster bus;
 * - the instance lease's connection (instance-lease.ts), held for the life of the process and
 *   opened again if the database ends it;
 * - the worker pool, WORKER_POOL_SIZE connections, opened only by a process that runs the
 *   webhook worker: its sessions commit without waiting for the disk (delivery-queue.ts), and
 *   plan with bitmap and sequential scans off. A claim must walk the claim index in its order
 *   and stop after a batch; statistics read while the table was small (a burst of events
 *   since the last analyze) made the planner read every pending row through a bitmap and sort
 *   them, each claim, about 14 ms a claim at a 20,000-event backlog. Every statement of the
 *   worker has an index to use;
 * - one listening client per queue a worker of the process works (LISTEN for due work: webhook
 *   deliveries; jobs, once a job worker runs), only with a worker;
 * - one listening client of the chat cluster bus, only in a process that serves web chat.
 *
 * Pools are lent, not given: a module may wrap one in a Kysely instance and destroy that, but
 * only close() here ends a pool, so nothing is ended twice or left open.
 *
 * Any of these connections may end under the process (a restart, a failover, an administrator,
 * an idle timeout, a network cut). Each has an `error` listener from the moment it exists, so
 * such an end fails the queries on it and never the process; pools open new connections on the
 * next demand, listening clients and the lease connect again by themselves.
 */
export const WORKER_POOL_SIZE = 4;

/** int8 values (ids, epoch-ms times, counts) stay below 2^53, so plain numbers are safe. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

export class PostgresConnections {
  /** The query pool. */
  readonly pool: pg.Pool;
  private worker: pg.Pool | null = null;
  private cluster: pg.Pool | null = null;
  private readonly owned: Array<() => Promise<void>> = [];
  private readonly clients = new Set<pg.Client>();
  private readonly listens = new Set<() => Promise<void>>();

  constructor(
    private readonly url: string,
    poolSize = DEFAULT_POOL_SIZE,
  ) {
    this.pool = this.lend({ connectionString: url, max: Math.max(poolSize - 1, 1), types });
  }

  /** The instance lease's connection (instance-lease.ts; it connects and ends it). */
  leaseClient(): pg.Client {
    return new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000, keepAlive: true });
  }

  /** The webhook worker's pool (made on first use: only processes that run a worker need it). */
  workerPool(): pg.Pool {
    this.worker ??= this.lend({
      connectionString: this.url,
      max: WORKER_POOL_SIZE,
      types,
      options: '-c synchronous_commit=off -c jit=off -c enable_bitmapscan=off -c enable_seqscan=off',
    });
    return this.worker;
  }

  /** The pool of the chat cluster bus's listening connection (one connection, made on first use). */
  clusterPool(): pg.Pool {
    this.cluster ??= this.lend({ connectionString: this.url, max: 1, types });
    return this.cluster;
  }

  /**
   * LISTEN on `channel` on a client outside every pool (listen.ts: it connects again if the
   * connection drops) until the returned function or close() stops it. A listener its subscriber
   * left running would otherwise connect again for ever after the store closed.
   */
  listen(channel: string, listener: () => void): () => Promise<void> {
    const stopListening = listen(() => this.listenClient(), channel, listener);
    let stopping: Promise<void> | null = null;
    const stop = (): Promise<void> => {
      this.listens.delete(stop);
      return (stopping ??= stopListening());
    };
    this.listens.add(stop);
    return stop;
  }

  /** A client outside every pool, for LISTEN (it holds its connection while it listens). */
  private listenClient(): pg.Client {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000, keepAlive: true });
    this.clients.add(client);
    client.once('end', () => this.clients.delete(client));
    return client;
  }

  /** Stops every LISTEN, then ends every pool and listening client. */
  async close(): Promise<void> {
    await Promise.all([...this.listens].map((stop) => stop()));
    await Promise.all([...this.clients].map((c) => c.end().catch(() => undefined)));
    await Promise.all(this.owned.map((end) => end()));
  }

  private lend(config: pg.PoolConfig): pg.Pool {
    const pool = new pg.Pool(config);
    // A pooled connection the server ends (a restart, an administrator, the lease connection still
    // closing when the store is closed) reports an error on the pool; without a listener that
    // error would end the process. A query on such a connection fails by itself.
    pool.on('error', () => undefined);
    // A connection lent out has no pool listener: one that breaks while lent (between the
    // queries of a transaction) would otherwise end the process. Its queries fail instead.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const end = pool.end.bind(pool);
    pool.end = (() => Promise.resolve()) as typeof pool.end;
    this.owned.push(() => end().catch(() => undefined));
    return pool;
  }
}
