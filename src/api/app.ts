import Fastify, { type FastifyInstance, type onResponseHookHandler } from 'fastify';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../lib/logger.js';
import { callerCorrelationId } from '../lib/correlation.js';
import { RequestLog } from './request-log.js';
import { validatorCompiler } from './validator.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './errors.js';
import { errorBody } from './error-body.js';
import { JSON_MAX_DEPTH, isBlank, parseJsonBody } from './json-body.js';
import { RouteTable } from './route-table.js';
import { registerOpenApi } from './openapi.js';
import { registerScopes, type ScopedRoutes } from './scopes.js';
import type { GuardDeps } from './token-guard.js';
import type { AdminGuardDeps } from './admin-guard.js';
import { routeGroup } from './route-group.js';
import { docsRoutes } from './routes/docs.js';
import './context.js';

/** A year, the usual value; subdomains are left alone (they may be other services). */
export const HSTS = 'max-age=31536000';

/** Request ids from a pool of random bytes: one call into the crypto library per 512 requests, not per request. */
function requestIds(): () => string {
  let pool = Buffer.alloc(0);
  let at = 0;
  return () => {
    if (at + 8 > pool.length) {
      pool = randomBytes(4096);
      at = 0;
    }
    at += 8;
    return pool.toString('hex', at - 8, at);
  };
}

export interface AppOptions {
  logger: Logger;
  /** What the token scope's guard needs: the accounts, the hourly quota, the concurrency cap. */
  guard: GuardDeps;
  /** What the admin scope's guard needs: the sessions, the hourly quota, the trusted proxies. */
  admin: AdminGuardDeps;
  /** The route groups of each scope, with their dependencies (the runtime builds them). */
  routes: ScopedRoutes;
  baseUrl: string;
  bodyLimitBytes: number;
  tls?: { certFile: string; keyFile: string } | undefined;
  /**
   * True once the process is shutting down (SIGTERM). Once its listener has also closed (the end
   * of the drain), each answer closes its connection, so a proxy stops reusing it while the
   * process still answers.
   */
  draining?: () => boolean;
  /** Told of every answered request with its route template (metrics); absent, requests pay nothing. */
  requestMetrics?: RequestMetrics;
}

export interface RequestMetrics {
  request(method: string, route: string | undefined, status: number, seconds: number): void;
}

/** Builds the HTTP app without listening; tests drive it with inject() or a real port. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { baseUrl } = options;
  const https = options.tls ? { key: readFileSync(options.tls.keyFile), cert: readFileSync(options.tls.certFile) } : null;
  const freshId = requestIds();
  const logger = options.logger;
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: options.bodyLimitBytes,
    // Behind the reverse proxies of TRUSTED_PROXIES, request.ip (the request log's client) is the
    // address their X-Forwarded-For names; from anyone else the header is ignored.
    trustProxy: options.admin.trustedProxies.length > 0 ? [...options.admin.trustedProxies] : false,
    // The request id is the correlation id of what the request starts (lib/correlation.ts): the
    // caller's own when well-formed, so a caller or proxy can find its request in our logs.
    genReqId: (raw: IncomingMessage) => callerCorrelationId(raw.headers['x-request-id']) ?? callerCorrelationId(raw.headers['x-correlation-id']) ?? freshId(),
    requestIdHeader: false,
    // One line per request, on completion (request-log.ts), instead of Fastify's two.
    logController: new RequestLog(logger),
    // Answered below in the specification's error body, which Fastify's own 503 is not.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Errors before routing and from the HTTP parser, in the specification's error body too.
    frameworkErrors,
    clientErrorHandler,
    // Longer than any request line Node accepts (16 KB of headers): an overlong id reaches its
    // route, and so the token check, and is a 404 there instead of an unauthenticated 414.
    routerOptions: { maxParamLength: 16 * 1024 },
    // No per-request child logger: it is built for every request (with its bindings and the
    // redaction) and costs more than the one line written from it. The few lines written through
    // `request.log` (errors) name the request id themselves.
    childLoggerFactory: (base: Logger) => base,
    ...(https ? { https } : {}),
  } as never) as unknown as FastifyInstance;

  app.setValidatorCompiler(validatorCompiler);
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // Served over TLS by this process, browsers are told to keep to HTTPS (behind a proxy, the
  // proxy that ends TLS says so).
  const hsts = https !== null;
  const draining = options.draining ?? (() => false);
  // A synchronous hook: an async one costs a promise per request for one header.
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', request.id);
    if (hsts) void reply.header('Strict-Transport-Security', HSTS);
    // Node ends the connection after an answer that says so: closed by us after an answer, never
    // cut under a request the peer has just sent on it. Not before the listener closes: a proxy
    // would open a new connection for each request, and a connection still waiting to be accepted
    // when the listener closes is reset by the kernel after the proxy has sent its request on it.
    if (draining() && !app.server.listening) void reply.header('Connection', 'close');
    if (!closing) return done();
    void reply
      .code(503)
      .header('Connection', 'close')
      .send(errorBody(503, [{ message: 'The server is shutting down; send the request again.' }]));
  });

  // An empty body with a JSON content type is read as no body (clients send it on DELETE).
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (isBlank(text)) return done(null, undefined);
    let value: unknown;
    try {
      value = parseJsonBody(text, JSON_MAX_DEPTH);
    } catch (error) {
      return done(error as Error);
    }
    done(null, value);
  });

  if (options.requestMetrics) observeRequests(app, options.requestMetrics);

  // Every route with its scope, for 405 answers and for requests that match none (scopes.ts, errors.ts).
  const routes = new RouteTable();
  registerErrorHandling(app, options.bodyLimitBytes, routes);
  // On the app itself, so that the document sees the routes of every scope.
  await registerOpenApi(app, baseUrl);
  await registerScopes(
    app,
    { public: [routeGroup(docsRoutes, {}), ...options.routes.public], token: options.routes.token, admin: options.routes.admin },
    { guard: options.guard, table: routes, admin: options.admin },
  );
  return app;
}

/**
 * One observation per answered request, labelled by its route template. Each route gets a hook
 * that already holds its template (Fastify's `request.routeOptions` builds an object per read);
 * a request no route matched is observed by the app's own hook, without its URL.
 */
function observeRequests(app: FastifyInstance, metrics: RequestMetrics): void {
  const observers = new WeakSet<onResponseHookHandler>();
  app.addHook('onRoute', (route) => {
    const template = route.url;
    const observe: onResponseHookHandler = (request, reply, done) => {
      metrics.request(request.method, template, reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
    observers.add(observe);
    // A HEAD route Fastify derives from a GET comes here with the GET's hooks: one observer each.
    const own = route.onResponse === undefined ? [] : Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse];
    route.onResponse = [...(own as onResponseHookHandler[]).filter((hook) => !observers.has(hook)), observe];
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) metrics.request(request.method, undefined, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
