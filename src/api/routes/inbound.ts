import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { InboundCall } from '../../connectors/connector.js';
import type { InboundAnswer, InboundService, InboundTrace } from '../../domain/inbound/service.js';
import type { RoutePlugin } from '../route-group.js';
import { errorBody } from '../error-body.js';
import { ApiError } from '../../lib/errors.js';
import { isFormBody, readStreamedForm, readWhole, type StagedForm } from '../streamed-form.js';

/**
 * Calls from platforms, without an account token (the public scope, scopes.ts): each
 * connector checks the platform's signature on the raw body bytes, so these routes read the body
 * as a Buffer (a content-type parser scoped to this plugin) and never re-serialise it.
 *
 * - `GET|POST /v1/inbound/{type}`: one URL for a whole platform app (socialnet_chat), events name
 *   their page; GET is the platform's subscription handshake;
 * - `GET|POST /v1/inbound/{channel_id}/{endpoint}`: a channel's own URL, on the endpoints and
 *   methods its connector declares (botmsg: POST `updates`; status reports arrive by GET).
 *
 * Form bodies (multipart, urlencoded) are left unread by the parser: on an endpoint that declares
 * `streamedForm` (inbound mail, up to the provider's 25 MB) they are streamed, files to a temporary
 * folder removed once the call is answered; everywhere else they are read whole within the
 * service's body limit like any other body.
 */
function callOf(request: FastifyRequest, inbound: InboundService, rawBody: Buffer): InboundCall {
  // Null-prototype maps: names come from the caller, and `__proto__` must stay a name like any other.
  const headers: Record<string, string | undefined> = Object.create(null);
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  const query: Record<string, string | undefined> = Object.create(null);
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) if (typeof value === 'string') query[name] = value;
  return { method: request.method, endpoint: null, url: inbound.callUrl(request.url), headers, query, rawBody };
}

/** Streamed form bodies read at once per process: each may stage up to its limit on disk (25 MB for mail). */
const MAX_STREAMED_AT_ONCE = 4;

/**
 * The call's verdict on its request's log line (request-log.ts): `accepted`, or `refused` with the
 * error's code (a wrong signature, an unknown channel), and the correlation id of the sent message
 * a report named. Never the body, the headers or the query (they hold the platform's secrets).
 */
function accepted(request: FastifyRequest, trace: InboundTrace): void {
  request.logDetail = trace.messageCorrelationId ? { verdict: 'accepted', correlationId: trace.messageCorrelationId } : { verdict: 'accepted' };
}

export const inboundRoutes: RoutePlugin<{ inbound: InboundService }> = async (app, deps) => {
  const { inbound } = deps;
  app.addHook('onError', (request, _reply, error, done) => {
    request.logDetail = { verdict: 'refused', reason: error instanceof ApiError ? error.code : 'error' };
    done();
  });
  const send = (reply: import('fastify').FastifyReply, answer: InboundAnswer) => {
    // A refusal (a handshake with the wrong verify token) is an error like any other.
    if (answer.status >= 400) return reply.code(answer.status).send(errorBody(answer.status, [{ message: answer.body }]));
    // The body can echo what the caller sent (a handshake's challenge): never sniffed as a page.
    return reply.code(answer.status).header('Content-Type', answer.contentType).header('X-Content-Type-Options', 'nosniff').send(answer.body);
  };

  // This plugin is a scope of its own: the raw-body parsers serve its routes only.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.addContentTypeParser(['multipart/form-data', 'application/x-www-form-urlencoded'], (_request, _payload, done) => done(null, undefined));
  const bodyLimit = app.initialConfig.bodyLimit ?? 1024 * 1024;
  let streaming = 0;

  /** The body as a buffer: parsed already, or a form body the parser left unread, read now within the body limit. */
  const wholeBody = async (request: FastifyRequest): Promise<Buffer> =>
    Buffer.isBuffer(request.body) ? request.body : isFormBody(request.headers['content-type']) ? readWhole(request.raw, bodyLimit) : Buffer.alloc(0);

  const hidden = { hide: true, security: [] } as const;
  app.get('/v1/inbound/:type', { schema: { ...hidden, params: Type.Object({ type: Type.String() }) } }, async (request, reply) => {
    const { type } = request.params;
    const answer = inbound.handshake(type, callOf(request, inbound, await wholeBody(request)));
    request.logDetail = { verdict: answer.status < 400 ? 'handshake' : 'refused' };
    return send(reply, answer);
  });

  app.post('/v1/inbound/:type', { schema: { ...hidden, params: Type.Object({ type: Type.String() }) } }, async (request, reply) => {
    const { type } = request.params;
    const trace: InboundTrace = { requestId: request.id };
    const answer = await inbound.receiveForApp(type, callOf(request, inbound, await wholeBody(request)), trace);
    accepted(request, trace);
    return send(reply, answer);
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/v1/inbound/:channel_id/:endpoint',
    schema: { ...hidden, params: Type.Object({ channel_id: Type.String(), endpoint: Type.String() }) },
    handler: async (request, reply) => {
      const { channel_id, endpoint } = request.params;
      const streamed =
        request.body === undefined && isFormBody(request.headers['content-type']) ? await inbound.streamedFormOf(channel_id, endpoint, request.method) : null;
      if (!streamed) {
        // A form too large for a channel that streams none answers like an unknown channel: the
        // size a URL accepts must not tell which ids are mail channels.
        const body = await wholeBody(request).catch((error: unknown) => {
          if (error instanceof ApiError && error.status === 413) throw ApiError.notFound('Channel');
          throw error;
        });
        const trace: InboundTrace = { requestId: request.id };
        const answer = await inbound.receiveForChannel(channel_id, endpoint, callOf(request, inbound, body), trace);
        accepted(request, trace);
        return send(reply, answer);
      }
      if (streaming >= MAX_STREAMED_AT_ONCE) {
        void reply.header('Connection', 'close').header('Retry-After', '60');
        throw ApiError.of('unavailable', 'Too many large calls at once; try again later.');
      }
      streaming++;
      let staged: StagedForm | undefined;
      try {
        staged = await readStreamedForm(request.raw, request.headers, streamed.maxBytes);
        const call = { ...callOf(request, inbound, Buffer.alloc(0)), form: staged.form };
        const trace: InboundTrace = { requestId: request.id };
        const answer = await inbound.receiveForChannel(channel_id, endpoint, call, trace);
        accepted(request, trace);
        return send(reply, answer);
      } catch (error) {
        // What is left of a refused body is not read into anything: drained, and the connection closed after the answer.
        if (!request.raw.readableEnded) {
          void reply.header('Connection', 'close');
          request.raw.resume();
        }
        throw error;
      } finally {
        streaming--;
        await staged?.discard();
      }
    },
  });
};
