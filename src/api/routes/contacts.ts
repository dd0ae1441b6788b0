import { Type } from '@sinclair/typebox';
import type { ContactService } from '../../domain/contacts/service.js';
import { ContactResponse } from '../../schemas/content.js';
import { ListQuery } from '../../schemas/common.js';
import { accountOf } from '../context.js';
import { pageOf, pathId, sendList } from '../list-params.js';
import type { RoutePlugin } from '../route-group.js';

const ContactParams = Type.Object({ channel_id: Type.String(), contact_id: Type.String() });

export const contactRoutes: RoutePlugin<{ contacts: ContactService }> = async (app, deps) => {
  const { contacts } = deps;

  app.get(
    '/v1/channels/:channel_id/contacts',
    {
      schema: {
        tags: ['Contacts'],
        operationId: 'listContacts',
        summary: 'List Contacts (newest first)',
        params: Type.Object({ channel_id: Type.String() }),
        querystring: ListQuery,
        'x-response': { 200: Type.Array(ContactResponse) },
      },
    },
    async (request, reply) => {
      const { channel_id } = request.params;
      const { max, offset } = pageOf(request.query);
      const { contacts: list, total } = await contacts.list(accountOf(request).id, pathId(channel_id, 'Channel'), max, offset);
      return sendList(reply, list, total);
    },
  );

  app.get(
    '/v1/channels/:channel_id/contacts/:contact_id',
    {
      schema: { tags: ['Contacts'], operationId: 'getContact', summary: 'Get Contact', params: ContactParams, 'x-response': { 200: ContactResponse } },
    },
    async (request) => {
      const { channel_id, contact_id } = request.params;
      return contacts.get(accountOf(request).id, pathId(channel_id, 'Channel'), pathId(contact_id, 'Contact'));
    },
  );

  app.delete(
    '/v1/channels/:channel_id/contacts/:contact_id',
    {
      schema: {
        tags: ['Contacts'],
        operationId: 'deleteContact',
        summary: 'Delete Contact with its messages, files and pending events',
        params: ContactParams,
        'x-response': { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { channel_id, contact_id } = request.params;
      await contacts.delete(accountOf(request).id, pathId(channel_id, 'Channel'), pathId(contact_id, 'Contact'));
      return reply.code(204).send();
    },
  );
};
