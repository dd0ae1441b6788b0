import type { FastifyInstance } from 'fastify';
import type { Store } from './store/store.js';
import type { AccountService } from './domain/accounts/service.js';
import type { ChannelService } from './domain/channels/service.js';
import type { ConcurrencyGate, RateLimiter } from './domain/limits/rate-limiter.js';
import type { Outbox } from './domain/events/outbox.js';
import type { SettingsService } from './domain/settings/service.js';
import type { MessageService } from './domain/messages/service.js';
import type { ContactService } from './domain/contacts/service.js';

/** What the HTTP app and the workers are given: the domain services, built once by the runtime. */
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
  /** Further route groups (messages, inbound platform calls, ...) registered by the runtime. */
  routeExtensions: Array<(app: FastifyInstance) => void>;
}
