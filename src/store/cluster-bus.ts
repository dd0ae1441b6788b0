import type pg from 'pg';

/**
 * How the processes sharing one database pass messages to each other (the chat server's
 * broadcasts to connections open on other instances). Only the store opens database connections,
 * so it hands this out; on SQLite one process serves everything and there is none.
 */
export interface ClusterBus {
  /**
   * What the socket.io PostgreSQL adapter takes as its pool: `connect()` lends the one listening
   * connection, `query()` runs on the store's query pool. Typed as the driver's pool because
   * that is the adapter's parameter type; only those two methods are used.
   */
  readonly pool: pg.Pool;
  /**
   * Tells `listener` when the listening connection is lost (false) and when it listens again
   * (true): messages the other processes broadcast in between never arrived here.
   */
  onListening(listener: (listening: boolean) => void): void;
  /** Stops lending and takes back the listening connection; the store's own close does it too. */
  close(): Promise<void>;
}
