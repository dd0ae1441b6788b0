import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/store.js';
import { errorBody } from '../error-body.js';

/** Liveness answers while the process runs; readiness also checks the store. */
export function healthRoutes(app: FastifyInstance, deps: { store: Store }): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    try {
      await deps.store.ping();
      return { status: 'ready', store: deps.store.dialect };
    } catch (error) {
      request.log.warn({ err: error }, 'store not ready');
      return reply.code(503).send(errorBody(503, [{ message: 'The store is not reachable.' }]));
    }
  });
}
