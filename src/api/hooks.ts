import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AccountService } from '../domain/accounts/service.js';
import type { ConcurrencyGate, RateLimiter } from '../domain/limits/rate-limiter.js';
import { ApiError } from '../lib/errors.js';

export interface GuardDeps {
  accounts: AccountService;
  rateLimiter: RateLimiter;
  gate: ConcurrencyGate;
}

/** Paths under /v1 that carry no account token: docs, platform callbacks (signed), stored files. */
const PUBLIC_PREFIXES = ['/v1/openapi.json', '/v1/docs', '/v1/inbound/', '/v1/files/'];

export function needsToken(url: string): boolean {
  const path = url.split('?', 1)[0] ?? url;
  if (!path.startsWith('/v1/') && path !== '/v1') return false;
  return !PUBLIC_PREFIXES.some((p) => path === p || path.startsWith(p));
}

function tokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (m?.[1]) return m[1];
  }
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = query?.access_token;
  return typeof fromQuery === 'string' && fromQuery.length > 0 ? fromQuery : null;
}

export const QUOTA_MESSAGE = 'You have exceeded maximum number of requests and have been temporarily blocked.';

/**
 * Authentication, the hourly quota and the concurrency cap, in that order, before anything else
 * about the request is looked at (routing errors and body validation come after).
 */
export function registerGuards(app: FastifyInstance, deps: GuardDeps): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!needsToken(request.url)) return;
    const token = tokenOf(request);
    if (!token) throw ApiError.of('unauthorized', 'Missing access token.');
    const account = await deps.accounts.authenticate(token);
    if (!account) throw ApiError.of('unauthorized', 'Wrong accessToken.');
    request.account = account;

    const quota = await deps.rateLimiter.consume(account.id, account.hourlyLimit);
    void reply.header('X-RateLimit-Limit', String(quota.limit));
    void reply.header('X-RateLimit-Remaining', String(quota.remaining));
    void reply.header('X-RateLimit-Reset', String(quota.reset));
    if (!quota.allowed) throw ApiError.of('rate_limited', QUOTA_MESSAGE);

    if (!deps.gate.tryAcquire(account.id, account.concurrency)) {
      throw ApiError.of('rate_limited', `You have exceeded maximum number of simultaneous requests (${account.concurrency}) and have been temporarily blocked.`);
    }
    request.holdsSlot = true;
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
