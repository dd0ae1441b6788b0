import { Type } from '@sinclair/typebox';
import type { Store } from '../../store/store.js';
import { errorBody } from '../error-body.js';
import { STORE_RETRY_AFTER_SECONDS } from '../errors.js';
import type { RoutePlugin } from '../route-group.js';

/** Documentation of the checks: public, outside /v1, beyond the specification. */
const checks = { tags: ['Operations'], security: [], 'x-beyond-specification': true } as const;

/** Liveness answers while the process runs; readiness also checks the store. */
export const healthRoutes: RoutePlugin<{ store: Store }> = async (app, deps) => {
  app.get(
    '/healthz',
    {
      schema: {
        ...checks,
        operationId: 'checkLiveness',
        summary: 'Liveness: the process runs',
        'x-response': { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        ...checks,
        operationId: 'checkReadiness',
        summary: 'Readiness: the process runs and reaches its store (503 when not)',
        'x-response': { 200: Type.Object({ status: Type.Literal('ready'), store: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]) }) },
      },
    },
    async (request, reply) => {
      try {
        await deps.store.ping();
        return { status: 'ready', store: deps.store.dialect };
      } catch (error) {
        request.log.warn({ reqId: request.id, reason: error instanceof Error ? error.message : String(error) }, 'store not ready');
        void reply.header('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
        return reply.code(503).send(errorBody(503, [{ message: 'The store is not reachable.' }]));
      }
    },
  );
};
