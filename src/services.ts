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

/** The domain services, built once by the runtime, which hands the HTTP route groups and the workers what they need. */
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
}
