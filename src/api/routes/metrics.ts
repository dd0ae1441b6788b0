import { Type } from '@sinclair/typebox';
import { safeEqual } from '../../lib/crypto.js';
import type { Metrics } from '../../operations/metrics.js';
import { errorBody } from '../error-body.js';
import type { RoutePlugin } from '../route-group.js';

/**
 * The process's metrics in the Prometheus text format: public scope (no account, no quota), so a
 * scraper needs no account token; METRICS_TOKEN asks it for a bearer token of its own, and
 * METRICS_PORT moves the route to a listener that can be bound apart from the API.
 */
export const metricsRoutes: RoutePlugin<{ metrics: Metrics; token: string | null }> = async (app, deps) => {
  const expected = deps.token === null ? null : `Bearer ${deps.token}`;
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['Operations'],
        security: [],
        'x-beyond-specification': true,
        operationId: 'getMetrics',
        summary: 'Metrics in the Prometheus text format (a bearer token of its own when METRICS_TOKEN is set)',
        'x-response': { 200: Type.String() },
      },
    },
    async (request, reply) => {
      if (expected !== null && !safeEqual(request.headers.authorization ?? '', expected)) {
        return reply
          .code(401)
          .header('WWW-Authenticate', 'Bearer realm="metrics"')
          .send(errorBody(401, [{ message: 'The metrics need the bearer token set in METRICS_TOKEN.' }]));
      }
      const text = await deps.metrics.text();
      return reply.header('Content-Type', deps.metrics.contentType).header('Cache-Control', 'no-store').send(text);
    },
  );
};
