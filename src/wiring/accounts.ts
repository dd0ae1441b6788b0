import type { Config } from '../config.js';
import { systemClock, type Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import type { Store } from '../store/store.js';
import { AccountService } from '../domain/accounts/service.js';
import { SessionService } from '../domain/users/sessions.js';
import { SignInThrottle } from '../domain/users/throttle.js';
import { PasswordWork } from '../domain/users/hashing.js';
import { UserService } from '../domain/users/service.js';
import { idsOf, openMigratedStore } from './base.js';
import { wireFiles } from './files.js';

export interface AccountServices {
  accounts: AccountService;
  /** The administration app's sessions and users. */
  sessions: SessionService;
  users: UserService;
  /** The bound on password hashing the users' service runs its scrypt calls under. */
  passwordWork: PasswordWork;
}

interface AccountDeps {
  config: Config;
  store: Store;
  ids: IdGenerator;
  clock: Clock;
  removeFiles: (storageKeys: readonly string[]) => Promise<void>;
}

/** Accounts with their tokens, and the administration app's users (setup links at {origin}/admin/setup). */
export function wireAccounts({ config, store, ids, clock, removeFiles }: AccountDeps): AccountServices {
  const accounts = new AccountService({ store, ids, clock, authCacheMs: config.authCacheMs, removeFiles });
  const sessions = new SessionService({ store, clock });
  const passwordWork = new PasswordWork();
  const users = new UserService({
    store,
    ids,
    clock,
    sessions,
    throttle: new SignInThrottle({ store, clock, ids }),
    hashing: passwordWork,
    passwordCost: config.admin.passwordCost,
    setupUrl: `${new URL(config.publicUrl).origin}/admin/setup`,
  });
  return { accounts, sessions, users, passwordWork };
}

/**
 * The account and user services of a command (`parley account`, `token`, `user`), built by the
 * same wiring as the server's, on the store opened and migrated for the command alone.
 */
export async function openAccountServices(config: Config): Promise<AccountServices & { store: Store }> {
  const store = await openMigratedStore(config);
  const clock = systemClock;
  const { removeFiles } = wireFiles(config, store, clock);
  return { store, ...wireAccounts({ config, store, ids: idsOf(store, clock), clock, removeFiles }) };
}
