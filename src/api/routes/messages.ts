import { Type } from '@sinclair/typebox';
import type { MessageService } from '../../domain/messages/service.js';
import { checkIdempotencyKey } from '../../domain/messages/idempotency.js';
import { MessageResponse, SendMessageBody, SendMessageDoc } from '../../schemas/content.js';
import { ErrorBody, ListQuery } from '../../schemas/common.js';
import { MessageWithStatusResponse } from '../../schemas/message-status.js';
import { accountOf } from '../context.js';
import { pageOf, pathId, sendList } from '../list-params.js';
import { SEND_MESSAGE_EXAMPLES } from './examples.js';
import type { RoutePlugin } from '../route-group.js';

/** Documents the header the route reads itself (checkIdempotencyKey words its errors). */
const IdempotencyHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description:
        'Beyond the specification. 1 to 255 visible ASCII characters: the same key with the same body answers the first message again and sends nothing; with another body, 422. Kept with the message for RETENTION_IDEMPOTENCY_KEYS_DAYS (a day by default); then the same key makes a new message.',
    }),
  ),
});

export const messageRoutes: RoutePlugin<{ messages: MessageService; baseUrl: string }> = async (app, deps) => {
  const { messages, baseUrl } = deps;

  app.post(
    '/v1/messages',
    {
      schema: {
        tags: ['Messages'],
        operationId: 'sendMessage',
        summary: 'Send Message',
        description:
          'Answers 201 with the message and `Location`. The contact is given in one of the forms its channel type takes (Get Capabilities: `contact_addressing`): `id`; `phone_number` (with `first_name`, `last_name` on socialnet_chat); `user_ref` (socialnet_chat); `email` (with `name`). Synchronous channel types call the platform inside the request and answer 502 when it refuses; the others send from a queue and report failures as `message_failed` events. Optional header `Idempotency-Key` (beyond the specification).',
        body: SendMessageBody,
        'x-body': SendMessageDoc,
        'x-headers': IdempotencyHeaders,
        'x-examples': SEND_MESSAGE_EXAMPLES,
        'x-response': { 201: MessageResponse, 404: ErrorBody, 502: ErrorBody },
        'x-response-headers': {
          201: {
            'Idempotent-Replayed': {
              type: 'string',
              enum: ['true'],
              description: 'Present when the answer is the stored one of an earlier request with the same Idempotency-Key.',
            },
          },
        },
      },
    },
    async (request, reply) => {
      const key = checkIdempotencyKey(request.headers['idempotency-key']);
      const result = await messages.send(accountOf(request).id, request.body, key, request.id);
      request.logDetail = { messageId: result.message.id };
      if (result.replayed) void reply.header('Idempotent-Replayed', 'true');
      return reply.code(201).header('Location', `${baseUrl}/messages/${result.message.id}`).send(result.message);
    },
  );

  app.get(
    '/v1/messages/:message_id',
    {
      schema: {
        tags: ['Messages'],
        operationId: 'getMessage',
        summary: 'Get Message (beyond the specification)',
        description:
          "The address in Send Message's `Location`: a sent or received message of this account, with its `status` and, when failed, `error` (beyond the specification).",
        'x-beyond-specification': true,
        params: Type.Object({ message_id: Type.String() }),
        'x-response': { 200: MessageWithStatusResponse },
      },
    },
    async (request) => {
      const { message_id } = request.params;
      return messages.get(accountOf(request).id, pathId(message_id, 'Message'));
    },
  );

  app.get(
    '/v1/channels/:channel_id/contacts/:contact_id/messages',
    {
      schema: {
        tags: ['Messages'],
        operationId: 'listMessages',
        summary: 'List Messages of a contact (newest first)',
        description: 'Each message with its `status` and, when failed, `error` (beyond the specification).',
        params: Type.Object({ channel_id: Type.String(), contact_id: Type.String() }),
        querystring: ListQuery,
        'x-response': { 200: Type.Array(MessageWithStatusResponse) },
      },
    },
    async (request, reply) => {
      const { channel_id, contact_id } = request.params;
      const { max, offset } = pageOf(request.query);
      const { messages: list, total } = await messages.listForContact(
        accountOf(request).id,
        pathId(channel_id, 'Channel'),
        pathId(contact_id, 'Contact'),
        max,
        offset,
      );
      return sendList(reply, list, total);
    },
  );
};
