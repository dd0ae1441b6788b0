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
import { registerErrorHandling } from './errors.js';
import { registerGuards } from './hooks.js';
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
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // With logging off, a per-request child logger is pure cost (it rebuilds the redaction for every request).
    ...(options.logger.level === 'silent' ? { childLoggerFactory: (logger: Logger) => logger } : {}),
    ...(https ? { https } : {}),
  } as never) as unknown as FastifyInstance;

  app.setValidatorCompiler(validatorCompiler);
  // A synchronous hook: an async one costs a promise per request for one header.
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', request.id);
    done();
  });

  // An empty body with a JSON content type is read as no body (clients send it on DELETE).
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    defaultJson(request, body as string, done);
  });

  registerErrorHandling(app, options.bodyLimitBytes);
  registerGuards(app, services);
  await registerOpenApi(app, baseUrl);

  healthRoutes(app, services);
  channelRoutes(app, { channels: services.channels, baseUrl });
  settingsRoutes(app, { settings: services.settings });
  messageRoutes(app, { messages: services.messages, baseUrl });
  contactRoutes(app, { contacts: services.contacts });
  capabilityRoutes(app, { messages: services.messages });
  for (const extend of services.routeExtensions) extend(app);
  return app;
}
