import type { AccountService } from '../../../domain/accounts/service.js';
import type { ChannelService } from '../../../domain/channels/service.js';
import type { RateLimiter } from '../../../domain/limits/rate-limiter.js';
import type { UserService } from '../../../domain/users/service.js';
import type { SessionService } from '../../../domain/users/sessions.js';
import type { Clock } from '../../../lib/clock.js';
import type { RequestOrigin } from '../../admin-guard.js';
import { routeGroup, type RouteGroup } from '../../route-group.js';
import { sessionRoutes } from './session.js';
import { userRoutes } from './users.js';
import type { OverviewService } from '../../../domain/overview/service.js';
import type { TrialService } from '../../../domain/trial/service.js';
import type { WebhookTools } from '../../../domain/webhooks/tools.js';
import { adminTokenRoutes } from './tokens.js';
import { adminUsageRoutes } from './usage.js';
import { adminOverviewRoutes } from './overview.js';
import { adminWebhookToolRoutes } from './webhook-tools.js';
import { adminTrialRoutes } from './trial.js';
import { adminNlpStateRoutes } from './nlp-state.js';
import { adminChannelTypeRoutes } from './channel-types.js';
import type { NlpIntegrationService } from '../../../domain/nlp/service.js';

/** What the administration app's own route groups need: services the runtime built once (src/wiring/admin.ts). */
export interface AdminRouteDeps {
  users: UserService;
  sessions: SessionService;
  accounts: AccountService;
  channels: ChannelService;
  rateLimiter: RateLimiter;
  clock: Clock;
  origin: RequestOrigin;
  /** `{base_url}`, ending in /v1. */
  baseUrl: string;
  /** The account's figures on the app's first page. */
  overview: OverviewService;
  /** The webhook test event and the redelivery of a webhook's failures. */
  webhookTools: WebhookTools;
  /** The local trial against the platform stand-ins. */
  trial: TrialService;
  /** Channels' NLP integrations (the NLP tab asks for one without a 404 for none). */
  nlp: NlpIntegrationService;
}

/** The app-only route groups of the admin scope (mounted under /admin/api beside the token groups). */
export function adminRouteGroups(deps: AdminRouteDeps): RouteGroup[] {
  const { channels, baseUrl } = deps;
  return [
    routeGroup(sessionRoutes, deps),
    routeGroup(userRoutes, deps),
    routeGroup(adminTokenRoutes, { accounts: deps.accounts }),
    routeGroup(adminUsageRoutes, { rateLimiter: deps.rateLimiter }),
    routeGroup(adminOverviewRoutes, { overview: deps.overview }),
    routeGroup(adminWebhookToolRoutes, { tools: deps.webhookTools, channels, baseUrl }),
    routeGroup(adminTrialRoutes, { trial: deps.trial }),
    routeGroup(adminNlpStateRoutes, { nlp: deps.nlp }),
    routeGroup(adminChannelTypeRoutes, {}),
  ];
}
