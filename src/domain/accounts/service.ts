import type { Store } from '../../store/store.js';
import type { AccountRow, AccountUsage, TokenRow } from '../../store/repos/accounts.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import { newAccessToken, sha256Hex } from '../../lib/crypto.js';
import { isoTime } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { PLANS, type Plan } from './plans.js';
import { AuthCache } from './auth-cache.js';

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
  /** Token lookups kept per kind (known, unknown) at most; the oldest make room (default 10,000). */
  authCacheEntries?: number;
  /** Removes stored file bytes (the file store) of a deleted account; the rows go with it. */
  removeFiles?: (storageKeys: readonly string[]) => Promise<void>;
}

/** A token as listed: never the token itself, nor its hash. */
export interface TokenView {
  id: string;
  /** The token's first characters (null for tokens made before they were kept). */
  prefix: string | null;
  created: string;
  /** To within about a minute (USE_RECORD_MS); null when never used since it was recorded. */
  last_used: string | null;
  revoked: string | null;
}

/** A live token as the administration app lists it: never the token itself, nor its hash. */
export interface NamedTokenView {
  id: string;
  name: string;
  prefix: string | null;
  created_at: string;
  last_used_at: string | null;
}

/** The longest token name; a name is trimmed and must keep at least one character. */
export const TOKEN_NAME_MAX = 100;

export interface AccountChanges {
  name?: string;
  plan?: Plan;
  /** null: back to the plan's value. */
  hourlyLimit?: number | null;
  concurrency?: number | null;
}

export type RevokeOutcome = 'revoked' | 'already_revoked' | 'unknown';

/** A token's last use is written at most this often per token and process. */
export const USE_RECORD_MS = 60_000;
/** `prl_` and six characters: enough to tell tokens apart, far too few to guess one. */
const PREFIX_LENGTH = 10;

interface CachedAuth {
  account: Account | null;
  tokenId: number | null;
  /** When this process last recorded (or saw recorded) a use of the token. */
  usedAt: number;
  expires: number;
}

function tokenView(row: TokenRow): TokenView {
  return {
    id: String(row.id),
    prefix: row.prefix,
    created: isoTime(row.created_at),
    last_used: row.last_used_at === null ? null : isoTime(row.last_used_at),
    revoked: row.revoked_at === null ? null : isoTime(row.revoked_at),
  };
}

function namedTokenView(row: TokenRow): NamedTokenView {
  return {
    id: String(row.id),
    // Tokens made before they had names are called by their prefix (or id).
    name: row.name ?? `token ${row.prefix ?? row.id}`,
    prefix: row.prefix,
    created_at: isoTime(row.created_at),
    last_used_at: row.last_used_at === null ? null : isoTime(row.last_used_at),
  };
}

/** Accounts, their plans, and access tokens (stored only as SHA-256 hashes). */
export class AccountService {
  private readonly cache: AuthCache<CachedAuth>;

  constructor(private readonly deps: AccountServiceDeps) {
    this.cache = new AuthCache(deps.authCacheEntries);
  }

  /** How many token lookups this process holds, and the characters of their keys. */
  authCacheSize(): { entries: number; keyChars: number } {
    return { entries: this.cache.size, keyChars: this.cache.keyChars };
  }

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

  async findAccount(id: number): Promise<Account | undefined> {
    const row = await this.deps.store.accounts.find(id);
    return row ? toAccount(row) : undefined;
  }

  async listAccounts(): Promise<Account[]> {
    return (await this.deps.store.accounts.list()).map(toAccount);
  }

  async countAccounts(): Promise<number> {
    return this.deps.store.accounts.count();
  }

  /**
   * Changes the name, plan or limits. Running servers see it within AUTH_CACHE_MS (their token
   * cache holds the account); this process at once.
   */
  async updateAccount(id: number, changes: AccountChanges): Promise<Account | undefined> {
    const set: Partial<AccountRow> = {};
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.plan !== undefined) set.plan = changes.plan;
    if (changes.hourlyLimit !== undefined) set.hourly_limit = changes.hourlyLimit;
    if (changes.concurrency !== undefined) set.concurrency_limit = changes.concurrency;
    if (Object.keys(set).length > 0 && !(await this.deps.store.accounts.update(id, set))) return undefined;
    this.cache.clear();
    return this.findAccount(id);
  }

  /** What deleting the account would take with it. */
  async accountUsage(id: number): Promise<AccountUsage> {
    return this.deps.store.accounts.usage(id);
  }

  /**
   * Deletes the account with its tokens, channels and everything of them, in one transaction;
   * then the stored bytes of its files. Answers what went, or undefined when there is no such account.
   */
  async deleteAccount(id: number): Promise<AccountUsage | undefined> {
    const done = await this.deps.store.transaction(async (tx) => {
      const usage = await tx.accounts.usage(id);
      const keys = await tx.files.storageKeysForAccount(id);
      return (await tx.accounts.delete(id)) ? { usage, keys } : undefined;
    });
    this.cache.clear();
    if (!done) return undefined;
    if (done.keys.length > 0 && this.deps.removeFiles) await this.deps.removeFiles(done.keys);
    return done.usage;
  }

  /**
   * Makes a token, optionally named; the plain text is returned this once and never stored (only
   * its first characters).
   */
  async createToken(accountId: number, name?: string): Promise<{ id: string; accessToken: string; prefix: string; view: NamedTokenView }> {
    const accessToken = newAccessToken();
    const id = this.deps.ids.nextNumber();
    const prefix = accessToken.slice(0, PREFIX_LENGTH);
    const row: TokenRow = {
      id,
      account_id: accountId,
      token_hash: sha256Hex(accessToken),
      created_at: this.deps.clock.now(),
      revoked_at: null,
      prefix,
      last_used_at: null,
      ...(name === undefined ? {} : { name: checkedTokenName(name) }),
    };
    await this.deps.store.tokens.insert(row);
    return { id: String(id), accessToken, prefix, view: namedTokenView(row) };
  }

  /** The account's live tokens, oldest first, by name (revoked ones are not listed). */
  async listLiveTokens(accountId: number): Promise<NamedTokenView[]> {
    return (await this.deps.store.tokens.listLiveForAccount(accountId)).map(namedTokenView);
  }

  /**
   * Revokes a live token of this account. False when there is none by that id: another account's
   * token, a revoked one and a missing one look alike.
   */
  async revokeAccountToken(accountId: number, tokenId: number): Promise<boolean> {
    const done = await this.deps.store.tokens.revokeForAccount(accountId, tokenId, this.deps.clock.now());
    // Every cached lookup goes: a revoked token stops working in this process at once.
    if (done) this.cache.clear();
    return done;
  }

  async listTokens(accountId: number): Promise<TokenView[]> {
    return (await this.deps.store.tokens.listForAccount(accountId)).map(tokenView);
  }

  /** Revokes by token id or by the token itself. */
  async revokeToken(idOrToken: string): Promise<boolean> {
    const outcome = /^[0-9]+$/.test(idOrToken) ? await this.revokeTokenById(Number(idOrToken)) : await this.revokeTokenByValue(idOrToken);
    return outcome === 'revoked';
  }

  /** Revokes a token named by its id. */
  async revokeTokenById(id: number): Promise<RevokeOutcome> {
    const done = await this.deps.store.tokens.revoke(id, this.deps.clock.now());
    this.cache.clear();
    if (done) return 'revoked';
    return (await this.deps.store.tokens.find(id)) ? 'already_revoked' : 'unknown';
  }

  /** Revokes a token given as itself. */
  async revokeTokenByValue(token: string): Promise<RevokeOutcome> {
    const hash = sha256Hex(token);
    const done = await this.deps.store.tokens.revokeByHash(hash, this.deps.clock.now());
    this.cache.clear();
    if (done) return 'revoked';
    return (await this.deps.store.tokens.existsByHash(hash)) ? 'already_revoked' : 'unknown';
  }

  async authenticate(token: string): Promise<Account | null> {
    const now = this.deps.clock.now();
    // A known token is keyed by its text, so a hit costs no hash; the cache lives in this
    // process's memory only, for AUTH_CACHE_MS, as the requests carrying the token do.
    const hit = this.cache.get(token);
    if (hit && hit.expires > now) {
      if (hit.tokenId !== null && now - hit.usedAt >= USE_RECORD_MS) {
        hit.usedAt = now;
        this.recordUse(hit.tokenId, now);
      }
      return hit.account;
    }
    const owner = await this.deps.store.tokens.findOwnerByHash(sha256Hex(token));
    const account = owner ? toAccount(owner.account) : null;
    let usedAt = owner?.lastUsedAt ?? Number.NEGATIVE_INFINITY;
    if (owner && now - usedAt >= USE_RECORD_MS) {
      usedAt = now;
      this.recordUse(owner.tokenId, now);
    }
    if (this.deps.authCacheMs > 0) {
      this.cache.set(token, { account, tokenId: owner?.tokenId ?? null, usedAt, expires: now + this.deps.authCacheMs });
    }
    return account;
  }

  /**
   * Writes a token's last use without holding up the request: at most once per USE_RECORD_MS per
   * token and process, and not again when another instance wrote it meanwhile. A lost write only
   * makes the shown last use older.
   */
  private recordUse(tokenId: number, at: number): void {
    this.deps.store.tokens.recordUse(tokenId, at, at - USE_RECORD_MS).catch(() => undefined);
  }
}

/** A token name as stored: trimmed, 1 to TOKEN_NAME_MAX characters (422 on `name` otherwise). */
export function checkedTokenName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || [...trimmed].length > TOKEN_NAME_MAX) {
    throw ApiError.invalid('name', name, `Property 'name' must have 1 to ${TOKEN_NAME_MAX} characters.`);
  }
  return trimmed;
}
