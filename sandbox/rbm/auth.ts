import { verify } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { mergedParams } from '../shared/form-body.js';
import { randomAlnum } from '../shared/ids.js';
import { isRecord, optString } from '../shared/values.js';
import { originOf, type RbContext } from './context.js';
import { permissionDenied, RpcError, unauthenticated } from './errors.js';
import type { RbAgent } from './state.js';

// OAuth 2.0 for service accounts: POST /token with a signed RS256 assertion (jwt-bearer grant), and
// bearer-token checks on the API.

export const TOKEN_LIFETIME_S = 3599;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export function issueToken(ctx: RbContext, agentIds: string[]): string {
  const token = `ya_sandbox.${randomAlnum(120)}`;
  ctx.state.tokens.set(token, { agentIds, expiresAt: ctx.state.clock.now() + TOKEN_LIFETIME_S * 1000 });
  return token;
}

/** The agents the bearer token may act for; throws UNAUTHENTICATED. */
export function bearerAgents(ctx: RbContext, req: FastifyRequest): string[] {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  const token = m?.[1] === undefined ? undefined : ctx.state.tokens.get(m[1]);
  if (!token || token.expiresAt <= ctx.state.clock.now()) throw unauthenticated();
  return token.agentIds;
}

export function agentFor(ctx: RbContext, req: FastifyRequest, agentId: string | undefined): RbAgent {
  const allowed = bearerAgents(ctx, req);
  if (agentId === undefined || agentId === '') throw new RpcError(400, 'INVALID_ARGUMENT', 'agentId is required.');
  const agent = ctx.state.agents.get(agentId);
  if (!agent) throw new RpcError(404, 'NOT_FOUND', `Agent ${agentId} not found.`);
  if (!allowed.includes(agentId)) throw permissionDenied();
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
    const agent = [...ctx.state.agents.values()].find((a) => a.serviceAccountEmail === claims.iss);
    const signatureOk = agent ? verify('RSA-SHA256', Buffer.from(`${h}.${p}`), agent.publicKey, Buffer.from(s, 'base64url')) : false;
    if (!agent || !signatureOk) {
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
    const scopes = String(claims.scope ?? '').split(/\s+/);
    if (!scopes.includes(ctx.options.oauthScope)) {
      const e = oauthError('invalid_scope', `The scope ${ctx.options.oauthScope} is required.`);
      return reply.code(e.status).send(e.body);
    }
    return { access_token: issueToken(ctx, [agent.id]), expires_in: TOKEN_LIFETIME_S, token_type: 'Bearer' };
  });
}
