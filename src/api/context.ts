import type { Account } from '../domain/accounts/service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the token guard (token-guard.ts) on every route of the token scope. */
    account?: Account;
    /** Whether this request holds a slot of the account's concurrency cap. */
    holdsSlot?: boolean;
  }
}

export function accountOf(request: { account?: Account }): Account {
  if (!request.account) throw new Error('route used without authentication');
  return request.account;
}
