import Fastify, { type FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';

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
import { readFileSync } from 'node:fs';
import type { Logger } from '../lib/logger.js';
import type { Services } from '../services.js';
import { validatorCompiler } from './validator.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './errors.js';
import { publicWhile, registerGuards } from './hooks.js';
import { errorBody } from './error-body.js';
import { JSON_MAX_DEPTH, isBlank, parseJsonBody } from './json-body.js';
import { RouteTable } from './route-table.js';
import { registerOpenApi } from './openapi.js';
import { channelRoutes } from './routes/channels.js';
import { healthRoutes } from './routes/health.js';
import { settingsRoutes } from './routes/settings.js';
import { messageRoutes } from './routes/messages.js';
import { contactRoutes } from './routes/contacts.js';
import { capabilityRoutes } from './routes/capabilities.js';
import './context.js';

export interface AppOptions {
  logger: Logger;
  services: Services;
  baseUrl: string;
  bodyLimitBytes: number;
  tls?: { certFile: string; keyFile: string } | undefined;
}

/** Builds the HTTP app without listening; tests drive it with inject() or a real port. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { services, baseUrl } = options;
  const https = options.tls ? { key: readFileSync(options.tls.keyFile), cert: readFileSync(options.tls.certFile) } : null;
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: options.bodyLimitBytes,
    genReqId: requestIds(),
    requestIdHeader: false,
    // Answered below in the specification's error body, which Fastify's own 503 is not.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Errors before routing and from the HTTP parser, in the specification's error body too.
    frameworkErrors,
    clientErrorHandler,
    // Longer than any request line Node accepts (16 KB of headers): an overlong id reaches its
    // route, and so the token check, and is a 404 there instead of an unauthenticated 414.
    routerOptions: { maxParamLength: 16 * 1024 },
    // With logging off, a per-request child logger is pure cost (it rebuilds the redaction for every request).
    ...(options.logger.level === 'silent' ? { childLoggerFactory: (logger: Logger) => logger } : {}),
    ...(https ? { https } : {}),
  } as never) as unknown as FastifyInstance;

  app.setValidatorCompiler(validatorCompiler);
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // A synchronous hook: an async one costs a promise per request for one header.
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', request.id);
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

  // Every route, for 405 answers and for requests that match none (hooks.ts, errors.ts).
  const routes = new RouteTable();
  app.addHook('onRoute', (route) => routes.add(route));
  registerErrorHandling(app, options.bodyLimitBytes, routes);
  registerGuards(app, services, routes);
  // The documentation (page and document) is public: its routes come from a plugin.
  await publicWhile(app, () => registerOpenApi(app, baseUrl));

  healthRoutes(app, services);
  channelRoutes(app, { channels: services.channels, baseUrl });
  settingsRoutes(app, { settings: services.settings });
  messageRoutes(app, { messages: services.messages, baseUrl });
  contactRoutes(app, { contacts: services.contacts });
  capabilityRoutes(app, { messages: services.messages });
  for (const extend of services.routeExtensions) extend(app);
  return app;
}
