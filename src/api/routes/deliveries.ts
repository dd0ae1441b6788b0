import { Type } from '@sinclair/typebox';
import type { WebhookDeliveryService } from '../../domain/webhooks/service.js';
import { DELIVERY_STATUSES, DeliveryResponse } from '../../domain/webhooks/schemas.js';
import { ErrorBody, ListQuery } from '../../schemas/common.js';
import { accountOf } from '../context.js';
import { pageOf, pathId, sendList } from '../list-params.js';
import type { RoutePlugin } from '../route-group.js';

const ChannelParams = Type.Object({ channel_id: Type.String() });
const DeliveryParams = Type.Object({ channel_id: Type.String(), delivery_id: Type.String() });
const DeliveriesQuery = Type.Object(
  {
    ...ListQuery.properties,
    status: Type.Optional(
      Type.Union(
        DELIVERY_STATUSES.map((s) => Type.Literal(s)),
        { description: 'Only deliveries in this state.' },
      ),
    ),
  },
  { additionalProperties: true },
);

/** The attempt log of a channel's webhook (beyond the specification) and redelivery. */
export const deliveryRoutes: RoutePlugin<{ webhooks: WebhookDeliveryService }> = async (app, deps) => {
  const { webhooks } = deps;

  app.get(
    '/v1/channels/:channel_id/webhook/deliveries',
    {
      schema: {
        tags: ['Webhooks'],
        operationId: 'listWebhookDeliveries',
        summary: 'List webhook deliveries of a channel with every try (newest first; beyond the specification)',
        'x-beyond-specification': true,
        params: ChannelParams,
        querystring: DeliveriesQuery,
        'x-response': { 200: Type.Array(DeliveryResponse) },
      },
    },
    async (request, reply) => {
      const { channel_id } = request.params;
      const query = request.query;
      const { deliveries, total } = await webhooks.list(accountOf(request).id, pathId(channel_id, 'Channel'), { ...pageOf(query), status: query.status });
      return sendList(reply, deliveries, total);
    },
  );

  app.post(
    '/v1/channels/:channel_id/webhook/deliveries/:delivery_id/redeliver',
    {
      schema: {
        tags: ['Webhooks'],
        operationId: 'redeliverWebhookDelivery',
        summary: 'Send a delivery again at once (same event id, new cycle of tries; beyond the specification)',
        description: 'Answers 422 when the channel has no webhook any more.',
        'x-beyond-specification': true,
        params: DeliveryParams,
        'x-response': { 202: DeliveryResponse, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      const { channel_id, delivery_id } = request.params;
      const channelId = pathId(channel_id, 'Channel');
      const delivery = await webhooks.redeliver(accountOf(request).id, channelId, pathId(delivery_id, 'Delivery'));
      return reply.code(202).send(delivery);
    },
  );
};
