import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import proxyAddr from '@fastify/proxy-addr';
import type { SessionService, ResolvedSession } from '../domain/users/sessions.js';
import type { RateLimiter } from '../domain/limits/rate-limiter.js';
import { ApiError } from '../lib/errors.js';
import { safeEqual } from '../lib/crypto.js';
import { QUOTA_MESSAGE } from './token-guard.js';

export const SESSION_COOKIE = 'parley_session';
export const CSRF_HEADER = 'x-csrf-token';
export const NO_SESSION = 'Sign in first: there is no session, or it has ended.';
export const WRONG_CSRF = 'Missing or wrong CSRF token.';
export const CROSS_SITE = 'Cross-site request refused.';

/** The contract's headers of every /admin answer: the app's pages and the admin API alike. */
export const ADMIN_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

export function setAdminSecurityHeaders(reply: FastifyReply): void {
  void reply.headers(ADMIN_SECURITY_HEADERS);
}

export interface AdminGuardDeps {
  sessions: SessionService;
  rateLimiter: RateLimiter;
  /** Reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (TRUSTED_PROXIES). */
  trustedProxies: readonly string[];
  /** The configured public origin (from PUBLIC_URL): an Origin naming it is same-site behind a proxy too. */
  publicOrigin: string;
}

/** One cookie's value from a Cookie header, without a parser library: names are compared exactly. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    return part.slice(eq + 1).trim();
  }
  return undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** How the admin scope tells where a request came from and whether it came over HTTPS. */
export interface RequestOrigin {
  /** The client address (the nearest untrusted one in X-Forwarded-For behind trusted proxies). */
  clientAddress(request: FastifyRequest): string;
  /** TLS to this server, or a trusted proxy saying `X-Forwarded-Proto: https`. */
  isHttps(request: FastifyRequest): boolean;
}

export function requestOrigin(trustedProxies: readonly string[]): RequestOrigin {
  const trust = trustedProxies.length > 0 ? proxyAddr.compile([...trustedProxies]) : null;
  const peerTrusted = (req: IncomingMessage) => trust !== null && req.socket.remoteAddress !== undefined && trust(req.socket.remoteAddress, 0);
  return {
    clientAddress: (request) => {
      const req = request.raw;
      if (!trust || req.socket.remoteAddress === undefined) return req.socket.remoteAddress ?? 'unknown';
      return proxyAddr(req, trust);
    },
    isHttps: (request) => {
      const req = request.raw;
      if ((req.socket as TLSSocket).encrypted) return true;
      if (!peerTrusted(req)) return false;
      const proto = req.headers['x-forwarded-proto'];
      const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
      return first === 'https';
    },
  };
}

/** The session cookie: HttpOnly, SameSite=Strict, only under /admin, Secure over HTTPS. */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}${secure ? '; Secure' : ''}`;
}

/**
 * Whether a change comes from another site: a browser names the page's origin in `Origin` (and
 * says `Sec-Fetch-Site`). Same-site is this request's own host, or the configured public origin.
 * A request with neither header (a script, not a browser page) is left to the CSRF token.
 */
function crossSite(request: FastifyRequest, publicOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  if (origin === publicOrigin) return false;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return true; // `null` (sandboxed frames, redirects) or garbage
  }
  return host !== request.headers.host;
}

/**
 * The onRequest hook of the admin scope: refuses cross-site changes, then (unless the route needs
 * no session) finds the session behind the cookie, checks the CSRF token on changes, sets the
 * request's account and user as the token guard sets the account, and counts a change against
 * the account's hourly quota with the X-RateLimit headers (reads are not counted). The concurrency cap is not taken: the
 * app's few parallel reads must not lock a free plan's user out of the page.
 */
export function adminGuard(deps: AdminGuardDeps): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (request, reply) => {
    const change = !SAFE_METHODS.has(request.method);
    if (change && crossSite(request, deps.publicOrigin)) throw ApiError.of('forbidden', CROSS_SITE);
    if (request.routeOptions.config?.adminSession === 'none') return;

    const id = cookieValue(request.headers.cookie, SESSION_COOKIE);
    const session: ResolvedSession | null = id ? await deps.sessions.resolve(id) : null;
    if (!session) throw ApiError.of('unauthorized', NO_SESSION);
    if (change) {
      const given = request.headers[CSRF_HEADER];
      if (typeof given !== 'string' || !safeEqual(given, session.csrfToken)) throw ApiError.of('forbidden', WRONG_CSRF);
    }
    const { user, account } = session;
    request.account = account;
    request.adminUser = { id: user.id, accountId: user.accountId, email: user.email, role: user.role };
    request.adminSession = session;

    // The hourly quota is the plan's allowance of API work: the app's changes (a send, a channel
    // saved) take from it like the token's requests do; the reads the app makes to show its pages
    // (an open conversation polls every 2 s) do not, or looking at the app would lock a free plan out.
    if (!change) return;
    const quota = await deps.rateLimiter.consume(account.id, account.hourlyLimit);
    void reply.header('X-RateLimit-Limit', String(quota.limit));
    void reply.header('X-RateLimit-Remaining', String(quota.remaining));
    void reply.header('X-RateLimit-Reset', String(quota.reset));
    if (!quota.allowed) throw ApiError.of('rate_limited', QUOTA_MESSAGE);
  };
}

/** A synchronous hook: the security headers, and no caching of the admin API's answers. */
export function adminApiHeaders(_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  setAdminSecurityHeaders(reply);
  void reply.header('Cache-Control', 'no-store');
  done();
}
