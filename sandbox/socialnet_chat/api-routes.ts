import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { mergedParams } from '../shared/form-body.js';
import { CONTROL_PREFIX } from '../shared/control.js';
import type { JsonRecord } from '../shared/values.js';
import { originOf, type SnContext } from './context.js';
import { ApiError, renderApiError, unknownPath } from './errors.js';
import { handleAccounts, handleAppSubscriptions, handleDebugToken, handleNode, handleOAuth, handleSubscribedApps } from './nodes-api.js';
import { handleProfile } from './profile-api.js';
import { handleAttachmentUpload, handleSend } from './send-api.js';
import { authenticate } from './tokens.js';

// The platform's versioned API: /{version}/{node} and /{version}/{node}/{edge}, dispatched here.

const VERSION = /^v\d+\.\d+$/;

type Params = { version: string; node: string; edge?: string };

async function dispatch(ctx: SnContext, req: FastifyRequest<{ Params: Params }>): Promise<JsonRecord> {
  const { version, node, edge } = req.params;
  if (version.startsWith('_')) throw Object.assign(new Error('no such control route'), { statusCode: 404 });
  if (!VERSION.test(version)) throw unknownPath(`/${version}`);
  const params = mergedParams(req.query, req.body);
  const method = req.method;

  if (edge === undefined) {
    if (node === 'oauth') throw unknownPath('/oauth');
    if (method !== 'GET') throw new ApiError(100, `(#100) Unsupported ${method.toLowerCase()} request.`, undefined, 'OAuthException');
    const caller = authenticate(ctx.state, params, req.headers.authorization);
    if (node === 'debug_token') return handleDebugToken(ctx, caller, params);
    return handleNode(ctx, caller, node, params, originOf(ctx, req));
  }

  // Token exchange is authenticated by client_id/client_secret, not by an access token.
  if (node === 'oauth' && edge === 'access_token' && method === 'GET') return handleOAuth(ctx, params);

  const caller = authenticate(ctx.state, params, req.headers.authorization);
  if (edge === 'messages' && method === 'POST') return handleSend(ctx, req, caller, node, params);
  if (edge === 'message_attachments' && method === 'POST') return handleAttachmentUpload(ctx, req, caller, node, params);
  if (edge.endsWith('_profile') && edge.length > '_profile'.length) return handleProfile(ctx, method, caller, node, params);
  if (edge === 'accounts' && method === 'GET') return handleAccounts(ctx, caller, node, params, `${originOf(ctx, req)}${req.url}`);
  if (edge === 'subscribed_apps') return handleSubscribedApps(ctx, method, caller, node, params);
  if (edge === 'subscriptions') return handleAppSubscriptions(ctx, method, caller, node, params);
  throw unknownPath(`/${edge}`);
}

export function registerApiRoutes(app: FastifyInstance, ctx: SnContext): void {
  const handler = async (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply): Promise<FastifyReply> => {
    const result = await dispatch(ctx, req);
    return reply.send(result);
  };
  app.route<{ Params: Params }>({ method: ['GET', 'POST', 'DELETE'], url: '/:version/:node', handler });
  app.route<{ Params: Params }>({ method: ['GET', 'POST', 'DELETE'], url: '/:version/:node/:edge', handler });

  app.setErrorHandler((err: unknown, req, reply) => {
    const abbreviation = ctx.options.platformAbbreviation;
    if (req.url.startsWith(CONTROL_PREFIX)) {
      const e = err as { statusCode?: number; message?: string };
      return reply.code(e.statusCode ?? 500).send({ error: { message: e.message ?? 'error' } });
    }
    if (err instanceof ApiError) {
      const { status, body } = renderApiError(err, abbreviation);
      return reply.code(status).send(body);
    }
    // Body parser and other framework errors: the platform answers those as code-100 errors.
    const e = err as { statusCode?: number; message?: string };
    const status = e.statusCode !== undefined && e.statusCode < 500 ? 400 : 500;
    const apiErr =
      status === 400
        ? new ApiError(100, `(#100) ${e.message ?? 'Invalid request'}`)
        : new ApiError(1, 'An unknown error has occurred.', undefined, 'OAuthException', 500, { is_transient: true });
    const { body } = renderApiError(apiErr, abbreviation);
    return reply.code(status).send(body);
  });

  app.setNotFoundHandler((req, reply) => {
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(404).send({ error: { message: 'no such control route' } });
    const { status, body } = renderApiError(unknownPath(req.url.split('?')[0] ?? req.url), ctx.options.platformAbbreviation);
    return reply.code(status).send(body);
  });
}
