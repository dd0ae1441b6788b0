import type { Store } from '../../store/store.js';
import type { AccountRow } from '../../store/repos/accounts.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import { newAccessToken, sha256Hex } from '../../lib/crypto.js';
import { isoTime } from '../../lib/clock.js';
import { PLANS, type Plan } from './plans.js';

export interface Account {
  id: number;
  name: string;
  plan: Plan;
  hourlyLimit: number;
  concurrency: number;
  createdAt: string;
}

export function toAccount(row: AccountRow): Account {
  const plan = row.plan as Plan;
  return {
    id: row.id,
    name: row.name,
    plan,
    hourlyLimit: row.hourly_limit ?? PLANS[plan].hourlyLimit,
    concurrency: row.concurrency_limit ?? PLANS[plan].concurrency,
    createdAt: isoTime(row.created_at),
  };
}

export interface AccountServiceDeps {
  store: Store;
  ids: IdGenerator;
  clock: Clock;
  /** How long a token lookup is reused; a revoked token stops working on other instances within it. */
  authCacheMs: number;
}

/** Accounts, their plans, and access tokens (stored only as SHA-256 hashes). */
export class AccountService {
  private readonly cache = new Map<string, { account: Account | null; expires: number }>();

  constructor(private readonly deps: AccountServiceDeps) {}

  async createAccount(input: { name: string; plan: Plan; hourlyLimit?: number; concurrency?: number }): Promise<Account> {
    const row: AccountRow = {
      id: this.deps.ids.nextNumber(),
      name: input.name,
      plan: input.plan,
      hourly_limit: input.hourlyLimit ?? null,
      concurrency_limit: input.concurrency ?? null,
      created_at: this.deps.clock.now(),
    };
    await this.deps.store.accounts.insert(row);
    return toAccount(row);
  }

  async getAccount(id: number): Promise<Account | undefined> {
    const row = await this.deps.store.accounts.get(id);
    return row ? toAccount(row) : undefined;
  }

  async listAccounts(): Promise<Account[]> {
    return (await this.deps.store.accounts.list()).map(toAccount);
  }

  async countAccounts(): Promise<number> {
    return this.deps.store.accounts.count();
  }

  /** Makes a token; the plain text is returned this once and never stored. */
  async createToken(accountId: number): Promise<{ id: string; accessToken: string }> {
    const accessToken = newAccessToken();
    const id = this.deps.ids.nextNumber();
    await this.deps.store.tokens.insert({ id, account_id: accountId, token_hash: sha256Hex(accessToken), created_at: this.deps.clock.now(), revoked_at: null });
    return { id: String(id), accessToken };
  }

  /** Revokes by token id or by the token itself. */
  async revokeToken(idOrToken: string): Promise<boolean> {
    const now = this.deps.clock.now();
    const done = /^[0-9]+$/.test(idOrToken)
      ? await this.deps.store.tokens.revoke(Number(idOrToken), now)
      : await this.deps.store.tokens.revokeByHash(sha256Hex(idOrToken), now);
    this.cache.clear();
    return done;
  }

  async authenticate(token: string): Promise<Account | null> {
    const now = this.deps.clock.now();
    // Keyed by the token as presented, so a hit costs no hash; the map lives in this process's
    // memory only, for AUTH_CACHE_MS, as the requests carrying the token do.
    const hit = this.cache.get(token);
    if (hit && hit.expires > now) return hit.account;
    const row = await this.deps.store.tokens.findAccountByHash(sha256Hex(token));
    const account = row ? toAccount(row) : null;
    if (this.deps.authCacheMs > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(token, { account, expires: now + this.deps.authCacheMs });
    }
    return account;
  }
}
