import type { Base } from './base.js';
import type { Services } from '../services.js';
import type { ConnectorSettings } from '../connectors/registry-defaults.js';
import type { RequestOrigin } from '../api/admin-guard.js';
import type { RouteGroup } from '../api/route-group.js';
import { adminRouteGroups } from '../api/routes/admin/index.js';
import { OverviewService } from '../domain/overview/service.js';
import { TrialService } from '../domain/trial/service.js';
import { WebhookTools } from '../domain/webhooks/tools.js';
import { trialDrivers } from '../trial/index.js';

/** The administration app's own route groups, with the services they share with the API and the app-only ones. */
export function wireAdminRoutes(base: Base, services: Services, deps: { connectorSettings: ConnectorSettings; origin: RequestOrigin }): RouteGroup[] {
  const { config, store, clock, outbox } = base;
  const baseUrl = config.publicUrl;
  const trial = new TrialService({
    store,
    channels: services.channels,
    sandboxUrl: config.sandboxUrl ?? null,
    drivers: trialDriversOf(deps.connectorSettings),
    baseUrl,
  });
  return adminRouteGroups({
    users: services.users,
    sessions: services.sessions,
    accounts: services.accounts,
    channels: services.channels,
    rateLimiter: services.rateLimiter,
    clock,
    origin: deps.origin,
    baseUrl,
    overview: new OverviewService({ store, clock }),
    webhookTools: new WebhookTools({ store, clock, outbox }),
    trial,
    nlp: services.nlp,
  });
}

/** The local trial's driver per type whose stand-in can act as an end user, at the platform URLs the connectors use (the sandbox's by default). */
function trialDriversOf(settings: ConnectorSettings) {
  return trialDrivers(settings);
}
