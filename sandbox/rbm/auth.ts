import { verify } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { mergedParams } from '../shared/form-body.js';
import { randomAlnum } from '../shared/ids.js';
import { isRecord, optString } from '../shared/values.js';
import { applyFault, originOf, type RbContext } from './context.js';
import { permissionDenied, RpcError, unauthenticated } from './errors.js';
import type { RbAgent, RbToken } from './state.js';

// OAuth 2.0 for service accounts: POST /token with a signed RS256 assertion (jwt-bearer grant), and
// bearer-token checks on the API.

export const TOKEN_LIFETIME_S = 3599;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** A token of the control API: both scopes, for the agents named. */
export function issueToken(ctx: RbContext, agentIds: string[], grant: { email?: string; scopes?: string[] } = {}): string {
  const token = `ya_sandbox.${randomAlnum(120)}`;
  const scopes = grant.scopes ?? [ctx.options.oauthScope, ctx.options.managementScope];
  ctx.state.tokens.set(token, {
    agentIds,
    ...(grant.email === undefined ? {} : { email: grant.email }),
    scopes,
    expiresAt: ctx.state.clock.now() + TOKEN_LIFETIME_S * 1000,
  });
  return token;
}

/** Which API a call is on: each needs its own scope. */
export type Api = 'messaging' | 'management';

/** The bearer token's grant; throws UNAUTHENTICATED, or PERMISSION_DENIED when it lacks the API's scope. */
export function bearer(ctx: RbContext, req: FastifyRequest, api: Api): RbToken {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  const token = m?.[1] === undefined ? undefined : ctx.state.tokens.get(m[1]);
  if (!token || token.expiresAt <= ctx.state.clock.now()) throw unauthenticated();
  const scope = api === 'messaging' ? ctx.options.oauthScope : ctx.options.managementScope;
  // Tokens kept from before scopes were recorded act on both APIs.
  if (token.scopes !== undefined && !token.scopes.includes(scope)) throw permissionDenied('Request had insufficient authentication scopes.');
  return token;
}

/** Whether a token may act for an agent: one of its partner's (its service account's), or named at issue. */
export function mayActFor(token: RbToken, agent: RbAgent): boolean {
  return token.agentIds.includes(agent.id) || (token.email !== undefined && token.email === agent.serviceAccountEmail);
}

export function agentFor(ctx: RbContext, req: FastifyRequest, agentId: string | undefined, api: Api = 'messaging'): RbAgent {
  const token = bearer(ctx, req, api);
  if (agentId === undefined || agentId === '') throw new RpcError(400, 'INVALID_ARGUMENT', 'agentId is required.');
  const agent = ctx.state.agents.get(agentId);
  if (!agent) throw new RpcError(404, 'NOT_FOUND', `Agent ${agentId} not found.`);
  if (!mayActFor(token, agent)) throw permissionDenied();
  return agent;
}

function oauthError(error: string, description: string): { status: number; body: Record<string, string> } {
  return { status: 400, body: { error, error_description: description } };
}

function decodePart(part: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

export function registerTokenEndpoint(app: FastifyInstance, ctx: RbContext): void {
  app.post('/token', async (req, reply) => {
    await applyFault(ctx, 'token');
    const params = mergedParams(req.query, req.body);
    const grant = optString(params.grant_type);
    if (grant !== JWT_BEARER) {
      const e = oauthError('unsupported_grant_type', `Invalid grant_type: ${grant ?? ''}`);
      return reply.code(e.status).send(e.body);
    }
    const assertion = optString(params.assertion) ?? '';
    const [h, p, s] = assertion.split('.');
    const header = h ? decodePart(h) : null;
    const claims = p ? decodePart(p) : null;
    if (!header || !claims || !s || header.alg !== 'RS256') {
      const e = oauthError('invalid_grant', 'Invalid JWT: malformed or not RS256.');
      return reply.code(e.status).send(e.body);
    }
    // A partner's key serves all its agents; an agent made by the control API has a key of its own.
    const partner = ctx.state.partners.get(String(claims.iss));
    const agent = [...ctx.state.agents.values()].find((a) => a.serviceAccountEmail === claims.iss);
    const publicKey = partner?.publicKey ?? agent?.publicKey;
    const signatureOk = publicKey ? verify('RSA-SHA256', Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, 'base64url')) : false;
    if (!publicKey || !signatureOk) {
      const e = oauthError('invalid_grant', 'Invalid JWT Signature.');
      return reply.code(e.status).send(e.body);
    }
    const now = Math.floor(ctx.state.clock.now() / 1000);
    const exp = Number(claims.exp);
    const iat = Number(claims.iat);
    if (!Number.isFinite(exp) || !Number.isFinite(iat) || exp <= now || iat > now + 60 || exp - iat > 3600) {
      const e = oauthError('invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.');
      return reply.code(e.status).send(e.body);
    }
    const tokenUri = `${originOf(ctx, req)}/token`;
    if (claims.aud !== tokenUri) {
      const e = oauthError('invalid_grant', `Invalid JWT audience; expected ${tokenUri}.`);
      return reply.code(e.status).send(e.body);
    }
    const known = [ctx.options.oauthScope, ctx.options.managementScope];
    const scopes = String(claims.scope ?? '')
      .split(/\s+/)
      .filter((scope) => known.includes(scope));
    if (scopes.length === 0) {
      const e = oauthError('invalid_scope', `One of the scopes ${known.join(', ')} is required.`);
      return reply.code(e.status).send(e.body);
    }
    return { access_token: issueToken(ctx, [], { email: String(claims.iss), scopes }), expires_in: TOKEN_LIFETIME_S, token_type: 'Bearer' };
  });
}
