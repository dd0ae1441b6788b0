import { randomBytes } from 'node:crypto';
import type { Store } from '../../store/store.js';
import type { AdminUserRow } from '../../store/repos/admin-users.js';
import type { Clock } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/crypto.js';
import { toAccount, type Account } from '../accounts/service.js';
import { toAdminUser, type AdminUser } from './views.js';

/** A session ends after 12 hours without a request, and 7 days after sign-in in any case. */
export const SESSION_IDLE_MS = 12 * 60 * 60_000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60_000;
/** Sessions a user may hold at once; a sign-in beyond ends the oldest. */
export const SESSIONS_PER_USER = 10;
/** The last use is written at most this often per session. */
const TOUCH_MS = 60_000;
const PRUNE_EVERY_MS = 60 * 60_000;

/** What the browser holds (the cookie's value) and what the app sends back on changes. */
export interface NewSession {
  /** The cookie's value: shown only to the browser; the store keeps its SHA-256. */
  id: string;
  csrfToken: string;
  expiresAt: number;
}

export interface ResolvedSession {
  idHash: string;
  csrfToken: string;
  expiresAt: number;
  user: AdminUser;
  account: Account;
}

/** Session ids and CSRF tokens: 32 random bytes, URL-safe. */
function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Administration sessions: made at sign-in, found by the cookie, ended at sign-out or on password changes. */
export class SessionService {
  private lastPrune = 0;

  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async create(user: AdminUserRow): Promise<NewSession> {
    const now = this.deps.clock.now();
    const id = randomToken();
    const csrfToken = randomToken();
    const expiresAt = now + SESSION_ABSOLUTE_MS;
    await this.deps.store.adminSessions.insert({
      id_hash: sha256Hex(id),
      user_id: user.id,
      csrf_token: csrfToken,
      created_at: now,
      last_seen_at: now,
      expires_at: expiresAt,
    });
    await this.deps.store.adminSessions.keepNewest(user.id, SESSIONS_PER_USER);
    if (now - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await this.deps.store.adminSessions.deleteExpired(now, now - SESSION_IDLE_MS);
    }
    return { id, csrfToken, expiresAt };
  }

  /** The live session behind a cookie value, or null (unknown, idle too long, or past its end: then it is removed). */
  async resolve(id: string): Promise<ResolvedSession | null> {
    if (id.length === 0 || id.length > 128) return null;
    const idHash = sha256Hex(id);
    const found = await this.deps.store.adminSessions.findWithUser(idHash);
    if (!found) return null;
    const now = this.deps.clock.now();
    const { session } = found;
    if (now >= session.expires_at || now - session.last_seen_at >= SESSION_IDLE_MS) {
      await this.deps.store.adminSessions.delete(idHash);
      return null;
    }
    if (now - session.last_seen_at >= TOUCH_MS) await this.deps.store.adminSessions.touch(idHash, now);
    return { idHash, csrfToken: session.csrf_token, expiresAt: session.expires_at, user: toAdminUser(found.user), account: toAccount(found.account) };
  }

  async end(idHash: string): Promise<void> {
    await this.deps.store.adminSessions.delete(idHash);
  }

  /** Ends the user's sessions, except the one named (by its hash). */
  async endAllOf(userId: number, exceptIdHash?: string): Promise<number> {
    return this.deps.store.adminSessions.deleteForUser(userId, exceptIdHash);
  }
}
