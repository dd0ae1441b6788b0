import pg from 'pg';
import { createAdapter } from '@socket.io/postgres-adapter';
import type { Server } from 'socket.io';
import { isSqliteUrl } from '../config.js';
import type { Logger } from '../lib/logger.js';

/**
 * With several server instances on one PostgreSQL database, a message for a contact must reach
 * that contact's connections wherever they are open: the socket.io PostgreSQL adapter passes
 * broadcasts between instances with LISTEN/NOTIFY (no extra server). It keeps one listening
 * connection, so it gets a small pool of its own rather than a slot of the store's pool.
 * On SQLite one process serves everything and the in-memory adapter is enough.
 */
export interface ClusterLink {
  close(): Promise<void>;
}

/**
 * The pool as the adapter sees it. The adapter acquires its listening connection in the
 * background and may still be doing so when the server closes; it would then keep that
 * connection for good and the pool could never end. This gate hands out no connection once
 * closing has begun, and takes back any connection still out when it closes.
 */
class AdapterPool {
  private closed = false;
  private readonly out = new Set<pg.PoolClient>();

  constructor(private readonly pool: pg.Pool) {}

  async connect(): Promise<pg.PoolClient> {
    if (this.closed) return new Promise<never>(() => undefined);
    const client = await this.pool.connect();
    if (this.closed) {
      client.release(true);
      return new Promise<never>(() => undefined);
    }
    const release = client.release.bind(client);
    client.release = (error?: Error | boolean) => {
      this.out.delete(client);
      release(error);
    };
    this.out.add(client);
    return client;
  }

  query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    if (this.closed) return Promise.reject(new Error('the chat cluster link is closed'));
    return this.pool.query(text, values);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async end(): Promise<void> {
    this.closed = true;
    for (const client of [...this.out]) client.release(true);
    await this.pool.end();
  }
}

export function linkInstances(io: Server, databaseUrl: string, logger: Logger): ClusterLink {
  if (isSqliteUrl(databaseUrl)) return { close: async () => undefined };
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  const gate = new AdapterPool(pool);
  const warn = (error: Error) => {
    if (!gate.isClosed) logger.warn({ err: error }, 'chat cluster link failed');
  };
  // The listening connection stays checked out: its errors (a restarted database) are logged,
  // not thrown; the adapter reconnects by itself.
  pool.on('error', warn);
  pool.on('connect', (client) => client.on('error', warn));
  io.adapter(
    createAdapter(gate as unknown as pg.Pool, {
      tableName: 'socket_io_attachments',
      channelPrefix: 'parley_chat',
      heartbeatInterval: 5000,
      heartbeatTimeout: 10000,
      errorHandler: warn,
    }),
  );
  return {
    async close() {
      await gate.end().catch(() => undefined);
    },
  };
}
