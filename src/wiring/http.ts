import type { FastifyInstance } from 'fastify';
import type { Base } from './base.js';
import type { Services } from '../services.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { ConnectorSettings } from '../connectors/registry-defaults.js';
import { buildApp } from '../api/app.js';
import { buildOperationsApp } from '../api/operations-app.js';
import { requestOrigin } from '../api/admin-guard.js';
import { routeGroup, type RouteGroup, type RoutePlugin } from '../api/route-group.js';
import { SessionLimits } from '../domain/limits/session-limits.js';
import { healthRoutes } from '../api/routes/health.js';
import { metricsRoutes } from '../api/routes/metrics.js';
import { fileRoutes } from '../api/routes/files.js';
import { widgetRoutes } from '../api/routes/widget.js';
import { widgetPreviewRoutes } from '../api/routes/widget-preview.js';
import { inboundRoutes } from '../api/routes/inbound.js';
import { adminAppRoutes, defaultAdminAppDir } from '../api/routes/admin-app.js';
import { channelRoutes } from '../api/routes/channels.js';
import { testerRoutes } from '../api/routes/testers.js';
import { nlpRoutes } from '../api/routes/nlp.js';
import { settingsRoutes } from '../api/routes/settings.js';
import { messageRoutes } from '../api/routes/messages.js';
import { contactRoutes } from '../api/routes/contacts.js';
import { capabilityRoutes } from '../api/routes/capabilities.js';
import { deliveryRoutes } from '../api/routes/deliveries.js';
import { notificationRoutes } from '../api/routes/notifications.js';
import type { OperationsWiring } from './operations.js';
import { wireAdminRoutes } from './admin.js';

export interface HttpOptions {
  /** Extra routes mounted in the token scope (tests). */
  extraRoutes?: RoutePlugin[];
  /** Where the built administration app is. */
  adminAppDir?: string;
}

/** The routes of callers with an access token (api/scopes.ts), each group given the services it uses. */
function tokenRoutes(services: Services, baseUrl: string, extraRoutes: RoutePlugin[]): RouteGroup[] {
  const { channels, platformState, messages } = services;
  return [
    routeGroup(channelRoutes, { channels, baseUrl, platformState, sharedUsage: (channel) => messages.sharedUsage(channel) }),
    routeGroup(testerRoutes, { testers: services.testers }),
    routeGroup(nlpRoutes, { nlp: services.nlp, baseUrl }),
    routeGroup(settingsRoutes, { settings: services.settings }),
    routeGroup(messageRoutes, { messages, baseUrl }),
    routeGroup(contactRoutes, { contacts: services.contacts }),
    routeGroup(capabilityRoutes, { messages }),
    routeGroup(deliveryRoutes, { webhooks: services.webhooks }),
    routeGroup(notificationRoutes, { notifications: services.notifications }),
    ...extraRoutes.map((plugin) => routeGroup(plugin, {})),
  ];
}

/** Public routes: files, the chat widget, platform callbacks, the administration app's files. */
function publicRoutes(services: Services, storedFiles: StoredFiles, adminAppDir: string | undefined): RouteGroup[] {
  return [
    routeGroup(fileRoutes, { files: storedFiles }),
    routeGroup(widgetRoutes, {}),
    routeGroup(widgetPreviewRoutes, {}),
    routeGroup(inboundRoutes, { inbound: services.inbound }),
    routeGroup(adminAppRoutes, { dir: adminAppDir ?? defaultAdminAppDir() }),
  ];
}

interface HttpDeps {
  services: Services;
  operations: OperationsWiring;
  storedFiles: StoredFiles;
  connectorSettings: ConnectorSettings;
  options: HttpOptions;
}

/**
 * The HTTP app, every route group in the scope of its callers; /metrics and the health checks
 * move to the operations listener when it has an address of its own (METRICS_PORT; a worker).
 */
export async function wireHttp(base: Base, deps: HttpDeps): Promise<{ app: FastifyInstance; operationsApp: FastifyInstance | null }> {
  const { config, store, clock, logger } = base;
  const { services, operations, options } = deps;
  const { readiness, metrics } = operations;
  const health = routeGroup(healthRoutes, { readiness, dialect: store.dialect });
  const operationRoutes = [health, routeGroup(metricsRoutes, { metrics, token: config.operations.token })];
  const separateOperations = config.operations.port !== null;
  const app = await buildApp({
    logger,
    requestMetrics: metrics,
    draining: () => readiness.shuttingDown,
    baseUrl: config.publicUrl,
    bodyLimitBytes: config.bodyLimitBytes,
    tls: config.tls,
    guard: services,
    admin: {
      sessions: services.sessions,
      rateLimiter: services.rateLimiter,
      sessionLimits: new SessionLimits(clock),
      trustedProxies: config.admin.trustedProxies,
      publicOrigin: new URL(config.publicUrl).origin,
    },
    routes: {
      public: [...(separateOperations ? [health] : operationRoutes), ...publicRoutes(services, deps.storedFiles, options.adminAppDir)],
      token: tokenRoutes(services, config.publicUrl, options.extraRoutes ?? []),
      admin: wireAdminRoutes(base, services, { connectorSettings: deps.connectorSettings, origin: requestOrigin(config.admin.trustedProxies) }),
    },
  });
  const operationsApp = separateOperations ? await buildOperationsApp({ logger: logger.child({ component: 'operations' }), routes: operationRoutes }) : null;
  return { app, operationsApp };
}
