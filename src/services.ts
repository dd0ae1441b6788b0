import type { Store } from './store/store.js';
import type { AccountService } from './domain/accounts/service.js';
import type { ChannelService } from './domain/channels/service.js';
import type { ConcurrencyGate, RateLimiter } from './domain/limits/rate-limiter.js';
import type { Outbox } from './domain/events/outbox.js';
import type { SettingsService } from './domain/settings/service.js';
import type { MessageService } from './domain/messages/service.js';
import type { ContactService } from './domain/contacts/service.js';
import type { SessionService } from './domain/users/sessions.js';
import type { UserService } from './domain/users/service.js';
import type { PasswordWork } from './domain/users/hashing.js';
import type { PlatformStateService } from './domain/platform-state/service.js';
import type { TestersService } from './domain/platform-state/testers.js';
import type { NlpIntegrationService } from './domain/nlp/service.js';
import type { WebhookDeliveryService } from './domain/webhooks/service.js';
import type { NotificationService } from './domain/notifications/service.js';
import type { InboundService } from './domain/inbound/service.js';

/** The domain services, built once by the runtime (src/wiring/services.ts), which hands the HTTP route groups and the workers what they need. */
export interface Services {
  store: Store;
  accounts: AccountService;
  channels: ChannelService;
  rateLimiter: RateLimiter;
  gate: ConcurrencyGate;
  outbox: Outbox;
  settings: SettingsService;
  messages: MessageService;
  contacts: ContactService;
  /** The administration app's sessions and users. */
  sessions: SessionService;
  users: UserService;
  /** The bound on password hashing the users' service runs its scrypt calls under. */
  passwordWork: PasswordWork;
  /** Channel states the platform moves, and the testers of such channels. */
  platformState: PlatformStateService;
  testers: TestersService;
  /** Channels' NLP integrations. */
  nlp: NlpIntegrationService;
  /** Webhook deliveries: the attempt log and redelivery. */
  webhooks: WebhookDeliveryService;
  notifications: NotificationService;
  /** What platforms report at /v1/inbound/... */
  inbound: InboundService;
}
