import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountService } from '../domain/accounts/service.js';
import type { ConcurrencyGate, RateLimiter } from '../domain/limits/rate-limiter.js';
import { ApiError } from '../lib/errors.js';

export interface GuardDeps {
  accounts: AccountService;
  rateLimiter: RateLimiter;
  gate: ConcurrencyGate;
}

/** Tokens are `prl_` and 40 letters or digits; anything much longer is refused before a lookup. */
export const TOKEN_MAX_LENGTH = 256;
/** The characters a bearer token may have (RFC 6750 b64token). */
const TOKEN_TEXT = /^[A-Za-z0-9._~+/-]+=*$/;

export const MISSING_TOKEN = 'Missing access token.';
export const WRONG_TOKEN = 'Wrong accessToken.';
export const QUOTA_MESSAGE = 'You have exceeded maximum number of requests and have been temporarily blocked.';

const MISSING = 0;
const WRONG = 1;

const SCHEME = 'bearer';

/** `Bearer <token>` (the scheme in any case): the token text, or WRONG. Compared by character, not copied. */
function bearer(header: string): string | typeof WRONG {
  if (header.length < 8 || (header.charCodeAt(6) !== 32 && header.charCodeAt(6) !== 9)) return WRONG;
  // ASCII letters: setting 0x20 lowers the case.
  for (let i = 0; i < 6; i++) if ((header.charCodeAt(i) | 0x20) !== SCHEME.charCodeAt(i)) return WRONG;
  let at = 7;
  while (header.charCodeAt(at) === 32 || header.charCodeAt(at) === 9) at++;
  return header.slice(at);
}

/**
 * The credential of a request: the token, MISSING when none is given, or WRONG when one is given
 * but cannot be a token (another scheme, no scheme, spaces, a repeated or empty query parameter,
 * two different tokens, too long). An empty Authorization header counts as none.
 */
function credentialOf(request: FastifyRequest): string | typeof MISSING | typeof WRONG {
  const header = request.headers.authorization;
  const query = request.query as Record<string, unknown> | undefined | null;
  const fromQuery = query ? query.access_token : undefined;
  let token: string | undefined;
  if (header !== undefined && header !== '') {
    const given = bearer(header);
    if (given === WRONG) return WRONG;
    token = given;
  }
  if (fromQuery !== undefined) {
    if (typeof fromQuery !== 'string' || (token !== undefined && token !== fromQuery)) return WRONG;
    token = fromQuery;
  }
  if (token === undefined) return MISSING;
  return token.length > 0 && token.length <= TOKEN_MAX_LENGTH && TOKEN_TEXT.test(token) ? token : WRONG;
}

export interface TokenGuard {
  /** The onRequest hook of the token scope. */
  guard(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Frees the request's slot of the concurrency cap (onResponse, onRequestAbort). */
  release(request: FastifyRequest): void;
}

/**
 * Authentication, the hourly quota and the concurrency cap, in that order, before anything else
 * about the request is looked at (body parsing and validation come after). The token scope
 * (scopes.ts) runs it on its routes only: it is decided on the matched route, never on the URL
 * text, so `/%761/channels` or an absolute-form request line is guarded exactly like `/v1/channels`.
 */
export function tokenGuard(deps: GuardDeps): TokenGuard {
  const guard = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const credential = credentialOf(request);
    if (credential === MISSING) throw ApiError.of('unauthorized', MISSING_TOKEN);
    if (credential === WRONG) throw ApiError.of('unauthorized', WRONG_TOKEN);
    const account = await deps.accounts.authenticate(credential);
    if (!account) throw ApiError.of('unauthorized', WRONG_TOKEN);
    request.account = account;

    const quota = await deps.rateLimiter.consume(account.id, account.hourlyLimit);
    void reply.header('X-RateLimit-Limit', String(quota.limit));
    void reply.header('X-RateLimit-Remaining', String(quota.remaining));
    void reply.header('X-RateLimit-Reset', String(quota.reset));
    if (!quota.allowed) throw ApiError.of('rate_limited', QUOTA_MESSAGE);

    if (!deps.gate.tryAcquire(account.id, account.concurrency)) {
      throw ApiError.of(
        'rate_limited',
        `You have exceeded maximum number of simultaneous requests (${account.concurrency}) and have been temporarily blocked.`,
      );
    }
    request.holdsSlot = true;
  };
  const release = (request: FastifyRequest): void => {
    if (request.holdsSlot && request.account) {
      request.holdsSlot = false;
      deps.gate.release(request.account.id);
    }
  };
  return { guard, release };
}
