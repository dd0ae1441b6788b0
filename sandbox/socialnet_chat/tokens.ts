import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomAlnum } from '../shared/ids.js';
import { ApiError, invalidToken, noAccessToken, tokenInvalid } from './errors.js';
import type { SnPage, SnToken, SocialnetChatState } from './state.js';

// Token minting and checking. Lifetimes follow the fact sheet: short-lived user token ~1 h,
// long-lived user token ~60 days, page token from a long-lived user token never expires.

export const SHORT_LIVED_MS = 60 * 60 * 1000;
export const LONG_LIVED_SECONDS = 5183944;
export const PAGE_SCOPES = ['pages_messaging', 'pages_show_list', 'pages_manage_metadata', 'pages_read_engagement'];

export function mintToken(state: SocialnetChatState, kind: 'user' | 'page', adminId: string, pageId: string | null, lifetimeMs: number | null): SnToken {
  const now = state.clock.now();
  const token: SnToken = {
    token: `${kind === 'page' ? 'SNP' : 'SNU'}${randomAlnum(kind === 'page' ? 120 : 100)}`,
    kind,
    adminId,
    pageId,
    issuedAt: now,
    expiresAt: lifetimeMs === null ? null : now + lifetimeMs,
    longLived: lifetimeMs === null || lifetimeMs > SHORT_LIVED_MS,
    scopes: PAGE_SCOPES,
    invalidReason: null,
  };
  state.tokens.set(token.token, token);
  return token;
}

export type Caller = { kind: 'app'; token: string } | { kind: 'user'; token: SnToken } | { kind: 'page'; token: SnToken; page: SnPage };

function appsecretProof(secret: string, token: string): string {
  return createHmac('sha256', secret).update(token).digest('hex');
}

function proofMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Resolves `access_token` (+ `appsecret_proof`) to the caller, or throws the platform's error. */
export function authenticate(state: SocialnetChatState, params: Record<string, unknown>, authHeader: string | undefined): Caller {
  let raw = typeof params.access_token === 'string' ? params.access_token : undefined;
  if (raw === undefined && authHeader !== undefined) {
    const m = /^(?:Bearer|OAuth)\s+(.+)$/i.exec(authHeader.trim());
    if (m?.[1]) raw = m[1];
  }
  if (raw === undefined || raw === '') throw noAccessToken();

  const app = state.app;
  if (raw === `${app.id}|${app.secret}`) return { kind: 'app', token: raw };

  const token = state.tokens.get(raw);
  if (!token) throw invalidToken();
  const now = state.clock.now();
  if (token.invalidReason) throw tokenInvalid(token.invalidReason, app.id, token.expiresAt ?? now, now);
  if (token.expiresAt !== null && now >= token.expiresAt) throw tokenInvalid('expired', app.id, token.expiresAt, now);

  const proof = params.appsecret_proof;
  if (typeof proof === 'string') {
    if (!proofMatches(appsecretProof(app.secret, raw), proof)) {
      throw new ApiError(100, 'Invalid appsecret_proof provided in the API argument', undefined, 'OAuthException');
    }
  } else if (app.requireAppSecretProof) {
    throw new ApiError(100, 'API calls from the server require an appsecret_proof argument', undefined, 'OAuthException');
  }

  if (token.kind === 'user') return { kind: 'user', token };
  const page = token.pageId === null ? undefined : state.pages.get(token.pageId);
  if (!page) throw invalidToken();
  if (!page.connected) throw tokenInvalid(page.disconnectReason ?? 'password_changed', app.id, now, now);
  return { kind: 'page', token, page };
}

export function requirePage(caller: Caller): { token: SnToken; page: SnPage } {
  if (caller.kind !== 'page') throw new ApiError(190, '(#190) This method must be called with a Page Access Token');
  return { token: caller.token, page: caller.page };
}

/** `me` or a page id, checked against the page token's page. */
export function requirePageNode(caller: Caller, node: string): { token: SnToken; page: SnPage } {
  const result = requirePage(caller);
  if (node !== 'me' && node !== result.page.id) {
    throw new ApiError(200, `(#200) The Page access token does not belong to Page ${node}`, undefined, 'OAuthException', 403);
  }
  return result;
}

/** Expiry in seconds since epoch the way debug_token reports it (0 = never). */
export function expiresAtSeconds(token: SnToken): number {
  return token.expiresAt === null ? 0 : Math.floor(token.expiresAt / 1000);
}
