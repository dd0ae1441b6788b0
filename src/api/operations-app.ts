import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from '../lib/logger.js';
import { errorBody } from './error-body.js';
import type { RouteGroup } from './route-group.js';

/**
 * The operations listener: /healthz, /readyz and /metrics on an address of their own
 * (METRICS_PORT, METRICS_HOST), for a worker process, which serves no API, and for an API process
 * whose metrics should not be reachable where the API is. Nothing else is served there.
 */
export async function buildOperationsApp(options: { logger: Logger; routes: readonly RouteGroup[] }): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger,
    // Probes only: no body is ever read here.
    bodyLimit: 1024,
    forceCloseConnections: 'idle',
    ...(options.logger.level === 'silent' ? { childLoggerFactory: (logger: Logger) => logger } : {}),
  } as never) as unknown as FastifyInstance;
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(errorBody(404, [{ message: 'Only /healthz, /readyz and /metrics are served here.' }])));
  app.setErrorHandler((error, request, reply) => {
    request.log.error({ err: error }, 'operations request failed');
    return reply.code(500).send(errorBody(500, [{ message: `The request failed (request id ${request.id}).` }]));
  });
  for (const group of options.routes) group.register(app);
  await app.ready();
  return app;
}
