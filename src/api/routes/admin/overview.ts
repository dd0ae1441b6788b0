import { Type } from '@sinclair/typebox';
import type { OverviewService } from '../../../domain/overview/service.js';
import { IdString, Timestamp } from '../../../schemas/common.js';
import { accountOf } from '../../context.js';
import type { RoutePlugin } from '../../route-group.js';

const Counts = {
  sent: Type.Integer(),
  received: Type.Integer(),
  deliveries_failed: Type.Integer({ description: 'Webhook deliveries that ended failed (every try used) in the period.' }),
};
const OverviewResponse = Type.Object({
  since: Timestamp,
  until: Timestamp,
  channels: Type.Array(
    Type.Object({
      id: IdString,
      name: Type.String(),
      type: Type.String(),
      mode: Type.String(),
      ...Counts,
      hourly: Type.Array(Type.Object({ hour: Timestamp, ...Counts }), { description: '24 buckets, oldest first; the last is the current hour.' }),
    }),
  ),
});

/** Per channel of the account: messages sent and received and deliveries failed over the last 24 hours, by hour. */
export const adminOverviewRoutes: RoutePlugin<{ overview: OverviewService }> = async (app, deps) => {
  app.get(
    '/overview',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminOverview',
        summary: 'Messages sent and received and webhook deliveries failed per channel, hour by hour over the last day',
        'x-response': { 200: OverviewResponse },
      },
    },
    async (request) => deps.overview.overview(accountOf(request).id),
  );
};
