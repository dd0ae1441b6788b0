import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../lib/errors.js';
import { isStoreUnavailable } from '../store/errors.js';
import { errorBody } from './error-body.js';
import { excerpt, requestPath } from './request-path.js';
import type { RouteTable } from './route-table.js';

/** What a 503 for an unreachable database asks clients to wait (seconds): the store reconnects within about that. */
export const STORE_RETRY_AFTER_SECONDS = 2;

/**
 * Every error leaves through here in the specification's body: ApiError as it says, Fastify's
 * own 4xx mapped to our wording, the database out of reach a 503 with Retry-After (the request
 * may be retried; a write's idempotency key finds one that did commit), anything else a generic
 * 500 with the request id (details are logged, never sent).
 */
export function registerErrorHandling(app: FastifyInstance, bodyLimit: number, routes: RouteTable): void {
  app.setNotFoundHandler(notFoundHandler(routes));

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      return reply.code(error.status).send(errorBody(error.status, error.details));
    }
    if (isStoreUnavailable(error)) {
      request.log.warn({ reason: error.message }, 'the store is unavailable');
      void reply.header('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
      return reply.code(503).send(errorBody(503, [{ message: 'The service cannot reach its database at the moment. Try again shortly.' }]));
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
    request.log.error({ reqId: request.id, err: error }, 'unhandled error');
    return reply.code(500).send(errorBody(500, [{ message: `Internal server error. Request id: ${request.id}.` }]));
  });
}

/** A request no route matches: 405 with the methods the path allows, else 404 (also the token scope's, scopes.ts). */
export function notFoundHandler(routes: RouteTable): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return (request, reply) => {
    const path = excerpt(requestPath(request.url));
    const allowed = routes.others(request.method, request.url).map((o) => o.method);
    if (allowed.length > 0) {
      void reply.header('Allow', allowed.join(', '));
      return reply.code(405).send(errorBody(405, [{ message: `Method ${request.method} is not allowed for resource ${path}.` }]));
    }
    return reply.code(404).send(errorBody(404, [{ message: `Resource ${path} not found.` }]));
  };
}

/**
 * Fastify's errors raised before routing (Fastify's `frameworkErrors` option): a path that is not
 * valid percent-encoding, a path segment over the router's limit.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('X-Request-Id', request.id);
  if (error.code === 'FST_ERR_BAD_URL') {
    void reply.code(400).send(errorBody(400, [{ message: 'The request path is not valid percent-encoding.' }]));
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.code(414).send(errorBody(414, [{ message: 'A segment of the request path is too long.' }]));
  } else {
    request.log.error({ reqId: request.id, err: error }, 'routing error');
    void reply.code(500).send(errorBody(500, [{ message: `Internal server error. Request id: ${request.id}.` }]));
  }
}

const CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'The request headers are larger than the server accepts.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time.' },
  HPE_INVALID_METHOD: { status: 400, message: 'The request method is not valid.' },
};

/**
 * Requests the HTTP parser refuses before Fastify sees them (Fastify's `clientErrorHandler`):
 * oversized headers, malformed request lines and headers, timeouts. Answered like every other
 * error, then the connection is closed. Nothing is written when a response is already on its way
 * on this connection (it would corrupt it), as Node does.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = error.code !== undefined && Object.hasOwn(CLIENT_ERRORS, error.code) ? CLIENT_ERRORS[error.code]! : null;
  const status = known?.status ?? 400;
  const message = known?.message ?? 'The request is not valid HTTP.';
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(errorBody(status, [{ message }]));
    // The answer to a HEAD request has no body (the request line is read when the headers are not).
    const raw = (error as { rawPacket?: unknown }).rawPacket;
    const head = Buffer.isBuffer(raw) && raw.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
    );
  }
  socket.destroy(error);
}
