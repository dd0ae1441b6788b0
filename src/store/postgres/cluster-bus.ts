import type pg from 'pg';
import type { ClusterBus } from '../cluster-bus.js';

/**
 * The cluster bus on PostgreSQL (LISTEN/NOTIFY, no extra server). Its listening connection comes
 * from a pool of one connection (see connections.ts); its queries (NOTIFY, the table of payloads
 * too large for a NOTIFY) share the store's query pool.
 *
 * The adapter acquires its listening connection in the background and may still be doing so
 * when the server closes; it would then keep that connection for good and the pool could never
 * end. So this gate lends no connection once closing has begun and takes back any connection
 * still out when it closes. A lent connection that the database drops (a restart) is given back
 * at once, so the adapter's reconnection finds the pool's one slot free. Whoever asked hears when
 * that connection is lost and when it listens again (its first LISTEN done).
 */
export class PostgresClusterBus implements ClusterBus {
  private closed = false;
  private readonly out = new Set<pg.PoolClient>();
  private readonly listeners: Array<(listening: boolean) => void> = [];

  constructor(
    private readonly listenPool: pg.Pool,
    private readonly queryPool: pg.Pool,
    private readonly onError: (error: Error) => void,
  ) {}

  private readonly report = (error: Error) => {
    if (!this.closed) this.onError(error);
  };

  private tell(listening: boolean): void {
    if (!this.closed) for (const listener of this.listeners) listener(listening);
  }

  onListening(listener: (listening: boolean) => void): void {
    this.listeners.push(listener);
  }

  get pool(): pg.Pool {
    return this as unknown as pg.Pool;
  }

  async connect(): Promise<pg.PoolClient> {
    if (this.closed) return new Promise<never>(() => undefined);
    const client = await this.listenPool.connect();
    if (this.closed) {
      client.release(true);
      return new Promise<never>(() => undefined);
    }
    const release = client.release.bind(client);
    let released = false;
    client.release = (error?: Error | boolean) => {
      if (released) return;
      released = true;
      this.out.delete(client);
      release(error);
    };
    // The listening connection stays lent: its errors are reported, not thrown; the adapter
    // connects again by itself when it ends.
    client.on('error', this.report);
    client.once('end', () => {
      client.release(true);
      this.tell(false);
    });
    // The adapter's LISTEN statements, on this connection only, say when it listens again.
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      const result = query(...args);
      if (typeof args[0] === 'string' && args[0].startsWith('LISTEN') && result instanceof Promise)
        result.then(
          () => this.tell(true),
          () => undefined,
        );
      return result;
    }) as typeof client.query;
    this.out.add(client);
    return client;
  }

  query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    if (this.closed) return Promise.reject(new Error('the cluster bus is closed'));
    return this.queryPool.query(text, values);
  }

  close(): Promise<void> {
    this.closed = true;
    for (const client of [...this.out]) client.release(true);
    return Promise.resolve();
  }
}
