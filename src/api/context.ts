import type { Account } from '../domain/accounts/service.js';
import type { ResolvedSession } from '../domain/users/sessions.js';

/** The signed-in user of the administration app (admin-guard.ts). */
export interface AdminUserContext {
  id: number;
  accountId: number;
  email: string;
  role: 'owner' | 'member';
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the token guard (token-guard.ts) on every route of the token scope, and by the admin guard to the session's account. */
    account?: Account;
    /** Whether this request holds a slot of the account's concurrency cap. */
    holdsSlot?: boolean;
    /** Whether this request holds a slot of the administration sessions' own cap (admin-guard.ts). */
    holdsAdminSlot?: boolean;
    /** Set by the admin guard (admin-guard.ts) on every route of the admin scope that needs a session. */
    adminUser?: AdminUserContext;
    /** The session behind the request's cookie (admin scope). */
    adminSession?: ResolvedSession;
    /** A route's own outcome, added to the request's log line (request-log.ts); never a secret. */
    logDetail?: Record<string, string | number | boolean | null>;
  }
  interface FastifyContextConfig {
    /** An admin route that needs no session (sign-in, setup): the guard checks only the Origin. */
    adminSession?: 'none';
    /** An admin route a user who must change their password may use (the change, the session, sign-out). */
    beforePasswordChange?: true;
    /** A catch-all route kept out of the route table (it must not make other paths answer 405). */
    notInRouteTable?: boolean;
  }
}

export function accountOf(request: { account?: Account }): Account {
  if (!request.account) throw new Error('route used without authentication');
  return request.account;
}

export function adminUserOf(request: { adminUser?: AdminUserContext }): AdminUserContext {
  if (!request.adminUser) throw new Error('admin route used without a session');
  return request.adminUser;
}

export function adminSessionOf(request: { adminSession?: ResolvedSession }): ResolvedSession {
  if (!request.adminSession) throw new Error('admin route used without a session');
  return request.adminSession;
}
