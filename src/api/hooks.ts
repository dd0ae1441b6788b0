import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AccountService } from '../domain/accounts/service.js';
import type { ConcurrencyGate, RateLimiter } from '../domain/limits/rate-limiter.js';
import { ApiError } from '../lib/errors.js';
import { isApiPath, requestPath } from './request-path.js';
import type { RouteTable } from './route-table.js';

export interface GuardDeps {
  accounts: AccountService;
  rateLimiter: RateLimiter;
  gate: ConcurrencyGate;
}

/** Route config of a route any client may call without an account token. */
export const PUBLIC = { public: true } as const;

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

/** Marks a guard so that a public scope can take it off the routes it marks. */
const GUARD = Symbol('token guard');

/**
 * Authentication, the hourly quota and the concurrency cap, in that order, before anything else
 * about the request is looked at (body parsing and validation come after).
 *
 * The guard is decided on the matched route, never on the URL text: every route needs a token
 * unless its config says `public: true` (PUBLIC), so `/%761/channels` or an absolute-form request
 * line is guarded exactly like `/v1/channels`. The guard is a hook of each such route, so public
 * routes pay nothing for it. A request that matches no route is guarded when its decoded path is
 * under /v1, unless every method of that path is public (then it is only told the allowed ones).
 */
export function registerGuards(app: FastifyInstance, deps: GuardDeps, routes: RouteTable): void {
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
  Object.defineProperty(guard, GUARD, { value: true });

  app.addHook('onRoute', (route) => {
    if (route.config?.public === true) return;
    route.onRequest = [guard, ...hookList(route.onRequest)] as never;
  });

  // A request no route matched: Fastify gives it the not-found handler's hooks only.
  const unmatchedNeedsToken = (request: FastifyRequest): boolean => {
    if (!isApiPath(requestPath(request.url))) return false;
    const others = routes.others(request.method, request.url);
    return others.length === 0 || others.some((o) => o.route.config?.public !== true);
  };
  // A callback hook: an async one costs a promise per request, and only unmatched ones need it.
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.is404 || !unmatchedNeedsToken(request)) return done();
    guard(request, reply).then(() => done(), done);
  });

  const release = (request: FastifyRequest) => {
    if (request.holdsSlot && request.account) {
      request.holdsSlot = false;
      deps.gate.release(request.account.id);
    }
  };
  // Callback hooks: an async one costs a promise per request for a counter decrement.
  app.addHook('onResponse', (request, _reply, done) => {
    release(request);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    release(request);
    done();
  });
}

function hookList(hooks: RouteOptions['onRequest']): unknown[] {
  if (hooks === undefined || hooks === null) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/** The app-wide onRoute hook has put the guard on the route already: it is taken off again. */
function markPublic(route: RouteOptions): void {
  route.config = { ...route.config, public: true };
  route.onRequest = hookList(route.onRequest).filter((hook) => !(typeof hook === 'function' && GUARD in hook)) as never;
}

/** Marks every route registered in an encapsulated `scope` public (platform callbacks). */
export function publicScope(scope: FastifyInstance): void {
  scope.addHook('onRoute', markPublic);
}

/**
 * Marks public every route registered while `register` runs: for plugins that register on the app
 * itself and whose route options cannot carry our config (the API documentation).
 */
export async function publicWhile<T>(app: FastifyInstance, register: () => Promise<T>): Promise<T> {
  let open = true;
  app.addHook('onRoute', (route) => {
    if (open) markPublic(route);
  });
  try {
    return await register();
  } finally {
    open = false;
  }
}
