import type { FastifyInstance, FastifyRequest } from 'fastify';

// What every stand-in factory returns.
export interface StandIn<S> {
  /** The fastify instance (usable with app.inject). */
  app: FastifyInstance;
  /** In-memory state; tests may read it directly. */
  state: S;
  /** Starts listening; returns the base URL (e.g. http://127.0.0.1:9101). */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
  /** Resolves once every outbound call the stand-in started on its own (echoes, queued updates) ended. */
  settle(): Promise<void>;
  /** Base URL once listening (or the configured public base URL). */
  baseUrl(): string | undefined;
}

export interface ListenHooks {
  onListening(baseUrl: string): void;
  onClose(): void;
}

export function makeLifecycle(
  app: FastifyInstance,
  hooks: ListenHooks,
): Pick<StandIn<unknown>, 'listen' | 'close'> {
  return {
    async listen(port = 0, host = '127.0.0.1'): Promise<string> {
      await app.listen({ port, host });
      const addr = app.server.address();
      if (addr === null || typeof addr === 'string') throw new Error('unexpected listen address');
      const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      const url = `http://${shownHost}:${addr.port}`;
      hooks.onListening(url);
      return url;
    },
    async close(): Promise<void> {
      hooks.onClose();
      await app.close();
    },
  };
}

/** Origin to put into URLs the stand-in hands out (media, profile pictures). */
export function originFor(req: FastifyRequest, configured: string | undefined): string {
  if (configured) return configured.replace(/\/$/, '');
  const host = req.headers.host ?? '127.0.0.1';
  return `http://${host}`;
}
