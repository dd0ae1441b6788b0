import { createAdapter } from '@socket.io/postgres-adapter';
import type { Server } from 'socket.io';
import type { ClusterBus } from '../store/store.js';
import type { Logger } from '../lib/logger.js';

/**
 * With several server instances on one database, a message for a contact must reach that
 * contact's connections wherever they are open: the socket.io PostgreSQL adapter passes
 * broadcasts between instances over the store's cluster bus (LISTEN/NOTIFY, no extra server).
 * Where the store has no bus (SQLite: one process serves everything) the in-memory adapter is enough.
 */
export interface ClusterLink {
  /** False while the link to the other instances is lost (new chat connections wait for it). */
  up(): boolean;
  close(): Promise<void>;
}

/** `openBus` is the store's `openClusterBus`; it gets the function that logs the bus's errors. */
export function linkInstances(io: Server, openBus: (onError: (error: Error) => void) => ClusterBus | null, logger: Logger): ClusterLink {
  const warn = (error: Error) => logger.warn({ err: error }, 'chat cluster link failed');
  const bus = openBus(warn);
  if (!bus) return { up: () => true, close: async () => undefined };
  let closed = false;
  let up = true;
  // A broadcast from another instance while the listening connection was away never arrives:
  // the connections open here are closed (transport closed, so browsers reconnect by themselves
  // and the widget reads its history again); new ones are refused until it listens again.
  bus.onListening((listening) => {
    if (closed) return;
    const wasUp = up;
    up = listening;
    if (!listening && wasUp) {
      logger.warn('chat cluster link lost; closing the chat connections of this instance so that browsers catch up');
      for (const socket of io.sockets.sockets.values()) socket.conn.close();
    }
  });
  io.adapter(
    createAdapter(bus.pool, {
      tableName: 'socket_io_attachments',
      channelPrefix: 'parley_chat',
      heartbeatInterval: 5000,
      heartbeatTimeout: 10000,
      errorHandler: (error) => {
        if (!closed) warn(error);
      },
    }),
  );
  return {
    up: () => up,
    async close() {
      closed = true;
      await bus.close().catch(() => undefined);
    },
  };
}
