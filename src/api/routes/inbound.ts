import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { InboundCall } from '../../connectors/connector.js';
import type { InboundAnswer, InboundService } from '../../domain/inbound/service.js';
import type { RoutePlugin } from '../route-group.js';
import { errorBody } from '../error-body.js';

/**
 * Calls from platforms, without an account token (the public scope, scopes.ts): each
 * connector checks the platform's signature on the raw body bytes, so these routes read the body
 * as a Buffer (a content-type parser scoped to this plugin) and never re-serialise it.
 *
 * - `GET|POST /v1/inbound/{type}`: one URL for a whole platform app (socialnet_chat), events name
 *   their page; GET is the platform's subscription handshake;
 * - `GET|POST /v1/inbound/{channel_id}/{endpoint}`: a channel's own URL, on the endpoints and
 *   methods its connector declares (botmsg: POST `updates`; status reports arrive by GET).
 */
function callOf(request: FastifyRequest, inbound: InboundService): InboundCall {
  // Null-prototype maps: names come from the caller, and `__proto__` must stay a name like any other.
  const headers: Record<string, string | undefined> = Object.create(null);
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  const query: Record<string, string | undefined> = Object.create(null);
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) if (typeof value === 'string') query[name] = value;
  const body = request.body;
  const rawBody = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
  return { method: request.method, endpoint: null, url: inbound.callUrl(request.url), headers, query, rawBody };
}

export const inboundRoutes: RoutePlugin<{ inbound: InboundService }> = async (app, deps) => {
  const { inbound } = deps;
  const send = (reply: import('fastify').FastifyReply, answer: InboundAnswer) => {
    // A refusal (a handshake with the wrong verify token) is an error like any other.
    if (answer.status >= 400) return reply.code(answer.status).send(errorBody(answer.status, [{ message: answer.body }]));
    // The body can echo what the caller sent (a handshake's challenge): never sniffed as a page.
    return reply.code(answer.status).header('Content-Type', answer.contentType).header('X-Content-Type-Options', 'nosniff').send(answer.body);
  };

  // This plugin is a scope of its own: the raw-body parser serves its routes only.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const hidden = { hide: true, security: [] } as const;
  app.get('/v1/inbound/:type', { schema: { ...hidden, params: Type.Object({ type: Type.String() }) } }, async (request, reply) => {
    const { type } = request.params;
    return send(reply, inbound.handshake(type, callOf(request, inbound)));
  });

  app.post('/v1/inbound/:type', { schema: { ...hidden, params: Type.Object({ type: Type.String() }) } }, async (request, reply) => {
    const { type } = request.params;
    return send(reply, await inbound.receiveForApp(type, callOf(request, inbound)));
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/v1/inbound/:channel_id/:endpoint',
    schema: { ...hidden, params: Type.Object({ channel_id: Type.String(), endpoint: Type.String() }) },
    handler: async (request, reply) => {
      const { channel_id, endpoint } = request.params;
      return send(reply, await inbound.receiveForChannel(channel_id, endpoint, callOf(request, inbound)));
    },
  });
};
