import type { FastifyError, FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';
import { ApiError } from '../lib/errors.js';
import { errorBody } from './error-body.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Every error leaves through here in the specification's body: ApiError as it says, Fastify's
 * own 4xx mapped to our wording, anything else a generic 500 with the request id (details are
 * logged, never sent).
 */
export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  const routes = FindMyWay();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if ((METHODS as readonly string[]).includes(m)) routes.on(m as (typeof METHODS)[number], route.url, () => undefined);
    }
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0] ?? request.url;
    const allowed = METHODS.filter((m) => m !== request.method && routes.find(m, path));
    if (allowed.length > 0) {
      void reply.header('Allow', allowed.join(', '));
      return reply.code(405).send(errorBody(405, [{ message: `Method ${request.method} is not allowed for resource ${path}.` }]));
    }
    return reply.code(404).send(errorBody(404, [{ message: `Resource ${path} not found.` }]));
  });

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      return reply.code(error.status).send(errorBody(error.status, error.details));
    }
    const status = error.statusCode ?? 500;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send(errorBody(413, [{ message: `Request body is larger than the limit of ${bodyLimit} bytes.` }]));
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send(errorBody(415, [{ message: 'Request body must be JSON (Content-Type: application/json).' }]));
    }
    if (error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
      return reply.code(400).send(errorBody(400, [{ message: 'Content-Length does not match the body.' }]));
    }
    if (status === 400 && (error.name === 'SyntaxError' || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/.test(error.message))) {
      return reply.code(400).send(errorBody(400, [{ message: 'Request body is not valid JSON.' }]));
    }
    if (status >= 400 && status < 500) {
      return reply.code(status).send(errorBody(status, [{ message: error.message }]));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(errorBody(500, [{ message: `Internal server error. Request id: ${request.id}.` }]));
  });
}
