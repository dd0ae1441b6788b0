import { Type } from '@sinclair/typebox';
import type { ChannelService } from '../../../domain/channels/service.js';
import { ChannelResponse } from '../../../domain/channels/schemas.js';
import { channelView } from '../../../domain/channels/view.js';
import type { WebhookTools } from '../../../domain/webhooks/tools.js';
import { ErrorBody, IdString } from '../../../schemas/common.js';
import { accountOf } from '../../context.js';
import { pathId } from '../../list-params.js';
import type { RoutePlugin } from '../../route-group.js';

const ChannelParams = Type.Object({ channel_id: Type.String() });

/** The webhook tab's tools: a test event, a new secret, and redelivering every failed delivery. */
export const adminWebhookToolRoutes: RoutePlugin<{ tools: WebhookTools; channels: ChannelService; baseUrl: string }> = async (app, deps) => {
  const { tools, channels, baseUrl } = deps;

  app.post(
    '/channels/:channel_id/webhook/test',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminSendWebhookTest',
        summary: "Queue a `webhook_test` event to the channel's webhook (signed, retried and logged like any event)",
        description:
          'The body sent is `{"event":"webhook_test","timestamp":...,"data":{"channel":{"id","type","name"}}}`. 422 when the channel has no webhook.',
        params: ChannelParams,
        'x-response': { 202: Type.Object({ delivery_id: IdString }), 422: ErrorBody },
      },
    },
    async (request, reply) => {
      const answer = await tools.sendTest(accountOf(request).id, pathId(request.params.channel_id, 'Channel'));
      return reply.code(202).send(answer);
    },
  );

  app.post(
    '/channels/:channel_id/webhook/secret',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminRotateWebhookSecret',
        summary: "Give the channel's webhook a new random secret; tries from now on are signed with it",
        params: ChannelParams,
        'x-response': { 200: ChannelResponse, 422: ErrorBody },
      },
    },
    async (request) => {
      const channel = await channels.rotateWebhookSecret(accountOf(request).id, pathId(request.params.channel_id, 'Channel'));
      return channelView(channel, 'get', baseUrl);
    },
  );

  app.post(
    '/channels/:channel_id/webhook/redeliver-failed',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminRedeliverFailed',
        summary: 'Send every failed delivery of the channel again at once (same event ids, a new cycle of tries each)',
        params: ChannelParams,
        'x-response': { 202: Type.Object({ redelivered: Type.Integer() }), 422: ErrorBody },
      },
    },
    async (request, reply) => {
      const answer = await tools.redeliverFailed(accountOf(request).id, pathId(request.params.channel_id, 'Channel'));
      return reply.code(202).send(answer);
    },
  );
};
