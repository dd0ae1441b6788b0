import type { Account } from '../domain/accounts/service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every /v1 route that needs a token. */
    account?: Account;
    /** Whether this request holds a slot of the account's concurrency cap. */
    holdsSlot?: boolean;
  }
  interface FastifyContextConfig {
    /** A route any client may call without an account token (hooks.ts); every other route needs one. */
    public?: boolean;
  }
}

export function accountOf(request: { account?: Account }): Account {
  if (!request.account) throw new Error('route used without authentication');
  return request.account;
}
