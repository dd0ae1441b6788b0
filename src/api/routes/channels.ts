import { Type } from '@sinclair/typebox';
import type { ChannelService } from '../../domain/channels/service.js';
import type { PlatformStateService } from '../../domain/platform-state/service.js';
import { channelView, type Channel } from '../../domain/channels/view.js';
import { ChannelResponse, CreateChannelBody, UpdateChannelBody } from '../../domain/channels/schemas.js';
import { ErrorBody, ListQuery } from '../../schemas/common.js';
import { accountOf } from '../context.js';
import { pageOf, pathId, sendList } from '../list-params.js';
import { CREATE_CHANNEL_EXAMPLES, UPDATE_CHANNEL_EXAMPLES } from './examples.js';
import type { RoutePlugin } from '../route-group.js';

const ChannelParams = Type.Object({ channel_id: Type.String() });
const secrets = Type.Optional(
  Type.Union([Type.Literal('include'), Type.Literal('omit')], {
    'x-beyond-specification': true,
    description:
      'Beyond the specification: `omit` leaves out the secrets the channel would show in clear: `webhook.secret` and the platform credentials (`access_token`, `signing_key`, `webhook_signing_key`, `callback_secret`, `client_token` of the type object). Default `include`, as the specification shows the Channel object.',
  }),
);
const SecretsQuery = Type.Object({ secrets });
const omitOf = (query: { secrets?: 'include' | 'omit' | undefined }) => ({ omitSecrets: query.secrets === 'omit' });
const GetChannelQuery = Type.Object({
  secrets,
  refresh: Type.Optional(
    Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')], {
      description:
        "Beyond the specification: `true` asks the platform for a state it moves (the rbm agent's `agent_state`) before answering; 502 when the platform cannot be reached.",
    }),
  ),
});

export const channelRoutes: RoutePlugin<{
  channels: ChannelService;
  baseUrl: string;
  platformState?: PlatformStateService;
  /** A channel in mode `shared`: its sent messages and its limit, shown by Get Channel. */
  sharedUsage?: (channel: Channel) => Promise<{ messages_sent: number; message_limit: number }>;
}> = async (app, deps) => {
  const { channels, baseUrl, platformState, sharedUsage } = deps;

  app.get(
    '/v1/channels',
    {
      schema: {
        tags: ['Channels'],
        operationId: 'listChannels',
        summary: 'List Channels (oldest first)',
        querystring: Type.Composite([ListQuery, SecretsQuery], { additionalProperties: true }),
        'x-response': { 200: Type.Array(ChannelResponse) },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const { max, offset } = pageOf(request.query);
      const { channels: list, total } = await channels.list(account.id, max, offset);
      return sendList(
        reply,
        list.map((c) => channelView(c, 'list', baseUrl, omitOf(request.query))),
        total,
      );
    },
  );

  app.post(
    '/v1/channels',
    {
      schema: {
        tags: ['Channels'],
        operationId: 'createChannel',
        summary: 'Create Channel',
        description:
          'The body is the object of one channel type, picked by `type`. Credentials are checked with the platform first: one that refuses them answers 422 naming the field, one that cannot be reached 502.',
        querystring: SecretsQuery,
        body: CreateChannelBody,
        'x-examples': CREATE_CHANNEL_EXAMPLES,
        'x-response': { 201: ChannelResponse, 502: ErrorBody },
      },
    },
    async (request, reply) => {
      const channel = await channels.create(accountOf(request).id, request.body);
      return reply
        .code(201)
        .header('Location', `${baseUrl}/channels/${channel.id}`)
        .send(channelView(channel, 'list', baseUrl, omitOf(request.query)));
    },
  );

  app.get(
    '/v1/channels/:channel_id',
    {
      schema: {
        tags: ['Channels'],
        operationId: 'getChannel',
        summary: 'Get Channel',
        params: ChannelParams,
        querystring: GetChannelQuery,
        'x-response': { 200: ChannelResponse, 502: ErrorBody },
      },
    },
    async (request) => {
      const { channel_id } = request.params;
      const id = pathId(channel_id, 'Channel');
      const refresh = request.query.refresh;
      if (platformState && (refresh === true || refresh === 'true')) await platformState.refresh(accountOf(request).id, id);
      const channel = await channels.get(accountOf(request).id, id);
      const view = channelView(channel, 'get', baseUrl, omitOf(request.query));
      if (channel.mode === 'shared' && sharedUsage) view.shared_mode = await sharedUsage(channel);
      return view;
    },
  );

  app.patch(
    '/v1/channels/:channel_id',
    {
      schema: {
        tags: ['Channels'],
        operationId: 'updateChannel',
        summary: 'Update Channel (a value sets, null deletes)',
        description: 'Answers the whole channel. `type` cannot change; `webhook: null` removes the webhook.',
        params: ChannelParams,
        querystring: SecretsQuery,
        body: Type.Object({}, { additionalProperties: true, description: UpdateChannelBody.title }),
        'x-body': UpdateChannelBody,
        'x-examples': UPDATE_CHANNEL_EXAMPLES,
        'x-response': { 200: ChannelResponse, 502: ErrorBody },
      },
    },
    async (request) => {
      const { channel_id } = request.params;
      const channel = await channels.update(accountOf(request).id, pathId(channel_id, 'Channel'), request.body);
      return channelView(channel, 'list', baseUrl, omitOf(request.query));
    },
  );

  app.delete(
    '/v1/channels/:channel_id',
    {
      schema: {
        tags: ['Channels'],
        operationId: 'deleteChannel',
        summary: 'Delete Channel and everything below it',
        params: ChannelParams,
        'x-response': { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { channel_id } = request.params;
      await channels.delete(accountOf(request).id, pathId(channel_id, 'Channel'));
      return reply.code(204).send();
    },
  );
};
