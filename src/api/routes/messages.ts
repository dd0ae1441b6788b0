import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { MessageService } from '../../domain/messages/service.js';
import { checkIdempotencyKey } from '../../domain/messages/idempotency.js';
import { MessageResponse, SendMessageBody, SendMessageDoc } from '../../schemas/content.js';
import { ErrorBody, ListQuery } from '../../schemas/common.js';
import { accountOf } from '../context.js';
import { pageOf, pathId, sendList } from '../list-params.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody, 429: ErrorBody };

export function messageRoutes(app: FastifyInstance, deps: { messages: MessageService; baseUrl: string }): void {
  const { messages, baseUrl } = deps;

  app.post('/v1/messages', {
    schema: {
      tags: ['Messages'],
      summary: 'Send Message',
      description:
        'Answers 201 with the message and `Location`. Optional header `Idempotency-Key` (1-255 visible ASCII characters): the same key with the same body returns the first answer and sends nothing again; with another body, 422.',
      body: SendMessageBody,
      'x-body': SendMessageDoc,
      'x-response': { 201: MessageResponse, ...errors, 502: ErrorBody },
    },
  }, async (request, reply) => {
    const key = checkIdempotencyKey(request.headers['idempotency-key']);
    const result = await messages.send(accountOf(request).id, request.body as SendMessageBody, key);
    if (result.replayed) void reply.header('Idempotent-Replayed', 'true');
    return reply.code(201).header('Location', `${baseUrl}/messages/${result.message.id}`).send(result.message);
  });

  app.get('/v1/messages/:message_id', {
    schema: { tags: ['Messages'], summary: 'Get Message (the address in Send Message\'s Location)', params: Type.Object({ message_id: Type.String() }), 'x-response': { 200: MessageResponse, ...errors } },
  }, async (request) => {
    const { message_id } = request.params as { message_id: string };
    return messages.get(accountOf(request).id, pathId(message_id, 'Message'));
  });

  app.get('/v1/channels/:channel_id/contacts/:contact_id/messages', {
    schema: {
      tags: ['Messages'],
      summary: 'List Messages of a contact (newest first)',
      params: Type.Object({ channel_id: Type.String(), contact_id: Type.String() }),
      querystring: ListQuery,
      'x-response': { 200: Type.Array(MessageResponse), ...errors },
    },
  }, async (request, reply) => {
    const { channel_id, contact_id } = request.params as { channel_id: string; contact_id: string };
    const { max, offset } = pageOf(request.query as { max?: number; offset?: number });
    const { messages: list, total } = await messages.listForContact(accountOf(request).id, pathId(channel_id, 'Channel'), pathId(contact_id, 'Contact'), max, offset);
    return sendList(reply, list, total);
  });
}
