import { Type } from '@sinclair/typebox';
import type { ContactService } from '../../domain/contacts/service.js';
import { ContactResponse } from '../../schemas/content.js';
import { ListQuery } from '../../schemas/common.js';
import { accountOf } from '../context.js';
import { pageOf, pathId, sendList } from '../list-params.js';
import type { RoutePlugin } from '../route-group.js';

/** The specification's list parameters and two of the service's own (ContactPage). */
const ListContactsQuery = Type.Object(
  {
    ...ListQuery.properties,
    order: Type.Optional(
      Type.Union([Type.Literal('newest'), Type.Literal('last_activity')], {
        default: 'newest',
        description:
          'newest: newest contact first (the default). last_activity: the contact with the newest message first (message times compared to the second).',
      }),
    ),
    q: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'Only contacts whose name, phone number, e-mail address or user reference contains this text, in any case, or whose id it is.',
      }),
    ),
  },
  { additionalProperties: true },
);

const ContactParams = Type.Object({ channel_id: Type.String(), contact_id: Type.String() });

export const contactRoutes: RoutePlugin<{ contacts: ContactService }> = async (app, deps) => {
  const { contacts } = deps;

  app.get(
    '/v1/channels/:channel_id/contacts',
    {
      schema: {
        tags: ['Contacts'],
        operationId: 'listContacts',
        summary: 'List Contacts (newest first; by last activity or searched on request)',
        description:
          "Beyond the specification: `order=last_activity` lists the contacts whose newest message is newest first (contacts without messages last), and `q` keeps those whose name, phone number, e-mail address or user reference contains it, in any case, or whose id it is. Without them the list is the specification's.",
        params: Type.Object({ channel_id: Type.String() }),
        querystring: ListContactsQuery,
        'x-response': { 200: Type.Array(ContactResponse) },
      },
    },
    async (request, reply) => {
      const { channel_id } = request.params;
      const { max, offset } = pageOf(request.query);
      const { order = 'newest', q } = request.query;
      const search = q?.trim();
      const page = { limit: max, offset, order, search: search ? search : undefined };
      const { contacts: list, total } = await contacts.list(accountOf(request).id, pathId(channel_id, 'Channel'), page);
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
