import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import proxyAddr from '@fastify/proxy-addr';
import type { SessionService, ResolvedSession } from '../domain/users/sessions.js';
import type { RateLimiter } from '../domain/limits/rate-limiter.js';
import { SESSION_BUSY, SESSION_READS_SPENT, type SessionLimits } from '../domain/limits/session-limits.js';
import { ApiError } from '../lib/errors.js';
import { safeEqual } from '../lib/crypto.js';
import { QUOTA_MESSAGE } from './token-guard.js';

export const SESSION_COOKIE = 'parley_session';
/** Its name over HTTPS: the browser keeps a `__Host-` cookie to this host, Secure, at Path=/, so no sibling can set it. */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
export const CSRF_HEADER = 'x-csrf-token';
export const NO_SESSION = 'Sign in first: there is no session, or it has ended.';
export const WRONG_CSRF = 'Missing or wrong CSRF token.';
export const CROSS_SITE = 'Cross-site request refused.';
export const DUPLICATE_COOKIE = 'The request carries the session cookie more than once. Clear the cookies of this site and sign in again.';
export const CHANGE_PASSWORD_FIRST = 'Change your password first: it was chosen by someone else.';

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
  /** The sessions' own bounds: reads and requests in flight per account. */
  sessionLimits: SessionLimits;
  /** Reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (TRUSTED_PROXIES). */
  trustedProxies: readonly string[];
  /** The configured public origin (from PUBLIC_URL): an Origin naming it is same-site behind a proxy too. */
  publicOrigin: string;
}

/**
 * Every value of one cookie in a Cookie header, without a parser library: names are compared
 * exactly. More than one means another cookie of the same name was planted (from another port of
 * the host, or a longer path): which one is ours cannot be told.
 */
export function cookieValues(header: string | undefined, name: string): string[] {
  const values: string[] = [];
  if (!header) return values;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    values.push(part.slice(eq + 1).trim());
  }
  return values;
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

/** The session cookie's name: `__Host-parley_session` over HTTPS, `parley_session` over plain HTTP. */
export function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/**
 * The session cookie: HttpOnly, SameSite=Strict. Over HTTPS `__Host-` prefixed, Secure, Path=/
 * (the prefix requires it); over plain HTTP only under /admin.
 */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  const maxAge = `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`;
  if (secure) return `${SECURE_SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; ${maxAge}; Secure`;
  return `${SESSION_COOKIE}=${value}; Path=/admin; HttpOnly; SameSite=Strict; ${maxAge}`;
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
 * no session) finds the session behind the cookie (a cookie name given twice is refused), checks
 * the CSRF token on changes, keeps a user who must change their password to the routes that do
 * it, sets the request's account and user as the token guard sets the account, and bounds the
 * work: a change counts against the account's hourly quota with the X-RateLimit headers; a read
 * takes from the sessions' own read allowance; every request takes a slot of the sessions' own
 * concurrency cap (session-limits.ts). The plan's concurrency cap is not taken: the app's few
 * parallel reads must not lock a free plan's user out of the page.
 */
export function adminGuard(deps: AdminGuardDeps): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const origin = requestOrigin(deps.trustedProxies);
  return async (request, reply) => {
    const change = !SAFE_METHODS.has(request.method);
    if (change && crossSite(request, deps.publicOrigin)) throw ApiError.of('forbidden', CROSS_SITE);
    const config = request.routeOptions.config;
    if (config?.adminSession === 'none') return;

    const ids = cookieValues(request.headers.cookie, sessionCookieName(origin.isHttps(request)));
    if (ids.length > 1) throw ApiError.of('bad_request', DUPLICATE_COOKIE);
    const session: ResolvedSession | null = ids[0] ? await deps.sessions.resolve(ids[0]) : null;
    if (!session) throw ApiError.of('unauthorized', NO_SESSION);
    if (change) {
      const given = request.headers[CSRF_HEADER];
      if (typeof given !== 'string' || !safeEqual(given, session.csrfToken)) throw ApiError.of('forbidden', WRONG_CSRF);
    }
    const { user, account } = session;
    if (user.mustChangePassword && config?.beforePasswordChange !== true) throw ApiError.of('forbidden', CHANGE_PASSWORD_FIRST);
    request.account = account;
    request.adminUser = { id: user.id, accountId: user.accountId, email: user.email, role: user.role };
    request.adminSession = session;

    // The hourly quota is the plan's allowance of API work: the app's changes (a send, a channel
    // saved) take from it like the token's requests do; the reads the app makes to show its pages
    // (an open conversation polls every 2 s) take from the sessions' own allowance instead, or
    // looking at the app would lock a free plan out.
    if (change) {
      const quota = await deps.rateLimiter.consume(account.id, account.hourlyLimit);
      void reply.header('X-RateLimit-Limit', String(quota.limit));
      void reply.header('X-RateLimit-Remaining', String(quota.remaining));
      void reply.header('X-RateLimit-Reset', String(quota.reset));
      if (!quota.allowed) throw ApiError.of('rate_limited', QUOTA_MESSAGE);
    } else {
      const wait = deps.sessionLimits.takeRead(account.id);
      if (wait > 0) {
        void reply.header('Retry-After', String(wait));
        throw ApiError.of('rate_limited', SESSION_READS_SPENT);
      }
    }
    if (!deps.sessionLimits.tryAcquire(account.id)) {
      if (!change) deps.sessionLimits.refundRead(account.id);
      void reply.header('Retry-After', '1');
      throw ApiError.of('rate_limited', SESSION_BUSY);
    }
    request.holdsAdminSlot = true;
  };
}

/** Frees the request's slot of the sessions' concurrency cap (onResponse, onRequestAbort). */
export function releaseAdminSlot(limits: SessionLimits): (request: FastifyRequest) => void {
  return (request) => {
    if (request.holdsAdminSlot && request.account) {
      request.holdsAdminSlot = false;
      limits.release(request.account.id);
    }
  };
}

/** A synchronous hook: the security headers, and no caching of the admin API's answers. */
export function adminApiHeaders(_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  setAdminSecurityHeaders(reply);
  void reply.header('Cache-Control', 'no-store');
  done();
}
