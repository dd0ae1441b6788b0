import { Type } from '@sinclair/typebox';
import type { DialectName } from '../../store/store.js';
import type { Readiness } from '../../operations/readiness.js';
import { errorBody } from '../error-body.js';
import { STORE_RETRY_AFTER_SECONDS } from '../errors.js';
import type { RoutePlugin } from '../route-group.js';

/** Documentation of the checks: public, outside /v1, beyond the specification. */
const checks = { tags: ['Operations'], security: [], 'x-beyond-specification': true } as const;

/**
 * Liveness answers while the process runs; readiness says whether it should be sent work (its
 * store, its schema, its queues, not shutting down). docs/operations.md tells load balancers which to ask.
 */
export const healthRoutes: RoutePlugin<{ readiness: Readiness; dialect: DialectName }> = async (app, deps) => {
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
        summary: "Readiness: the store answers with this build's schema, this role's queues are worked, the process is not shutting down (503 when not)",
        'x-response': { 200: Type.Object({ status: Type.Literal('ready'), store: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]) }) },
      },
    },
    async (request, reply) => {
      const report = await deps.readiness.check();
      if (report.ready) return { status: 'ready', store: deps.dialect };
      request.log.warn({ reqId: request.id, problems: report.problems }, 'not ready');
      return reply
        .code(503)
        .header('Cache-Control', 'no-store')
        .header('Retry-After', String(STORE_RETRY_AFTER_SECONDS))
        .send(
          errorBody(
            503,
            report.problems.map((message) => ({ message })),
          ),
        );
    },
  );
};
