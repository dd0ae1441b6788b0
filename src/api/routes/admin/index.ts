import type { AccountService } from '../../../domain/accounts/service.js';
import type { ChannelService } from '../../../domain/channels/service.js';
import type { RateLimiter } from '../../../domain/limits/rate-limiter.js';
import type { UserService } from '../../../domain/users/service.js';
import type { SessionService } from '../../../domain/users/sessions.js';
import type { WebhookDeliveryService } from '../../../domain/webhooks/service.js';
import type { Clock } from '../../../lib/clock.js';
import type { Store } from '../../../store/store.js';
import type { RequestOrigin } from '../../admin-guard.js';
import { routeGroup, type RouteGroup } from '../../route-group.js';
import { sessionRoutes } from './session.js';
import { userRoutes } from './users.js';
import type { Outbox } from '../../../domain/events/outbox.js';
import { OverviewService } from '../../../domain/overview/service.js';
import { TrialService } from '../../../domain/trial/service.js';
import { WebhookTools } from '../../../domain/webhooks/tools.js';
import type { ChannelType } from '../../../schemas/channel-types.js';
import type { TrialDriver } from '../../../trial/index.js';
import { adminTokenRoutes } from './tokens.js';
import { adminUsageRoutes } from './usage.js';
import { adminOverviewRoutes } from './overview.js';
import { adminWebhookToolRoutes } from './webhook-tools.js';
import { adminTrialRoutes } from './trial.js';
import { adminNlpStateRoutes } from './nlp-state.js';
import { adminChannelTypeRoutes } from './channel-types.js';
import type { NlpIntegrationService } from '../../../domain/nlp/service.js';

/** What the administration app's own route groups may need; the runtime builds it once. */
export interface AdminRouteDeps {
  users: UserService;
  sessions: SessionService;
  accounts: AccountService;
  channels: ChannelService;
  webhooks: WebhookDeliveryService;
  rateLimiter: RateLimiter;
  store: Store;
  clock: Clock;
  origin: RequestOrigin;
  /** Where the platform stand-ins' control API answers (SANDBOX_URL), or null. */
  sandboxUrl: string | null;
  outbox: Outbox;
  /** `{base_url}`, ending in /v1. */
  baseUrl: string;
  /** The local trial's driver per type whose stand-in can act as an end user. */
  trialDrivers: ReadonlyMap<ChannelType, TrialDriver>;
  /** Channels' NLP integrations (the NLP tab asks for one without a 404 for none). */
  nlp: NlpIntegrationService;
}

/** The app-only route groups of the admin scope (mounted under /admin/api beside the token groups). */
export function adminRouteGroups(deps: AdminRouteDeps): RouteGroup[] {
  const { store, clock, channels, baseUrl } = deps;
  const trial = new TrialService({ store, channels, sandboxUrl: deps.sandboxUrl, drivers: deps.trialDrivers, baseUrl });
  return [
    routeGroup(sessionRoutes, deps),
    routeGroup(userRoutes, deps),
    routeGroup(adminTokenRoutes, { accounts: deps.accounts }),
    routeGroup(adminUsageRoutes, { rateLimiter: deps.rateLimiter }),
    routeGroup(adminOverviewRoutes, { overview: new OverviewService({ store, clock }) }),
    routeGroup(adminWebhookToolRoutes, { tools: new WebhookTools({ store, clock, outbox: deps.outbox }), channels, baseUrl }),
    routeGroup(adminTrialRoutes, { trial }),
    routeGroup(adminNlpStateRoutes, { nlp: deps.nlp }),
    routeGroup(adminChannelTypeRoutes, {}),
  ];
}
