import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ChannelService } from '../../domain/channels/service.js';
import { channelView } from '../../domain/channels/view.js';
import { ChannelResponse, CreateChannelBody, UpdateChannelBody } from '../../domain/channels/schemas.js';
import { ErrorBody, ListQuery } from '../../schemas/common.js';
import { accountOf } from '../context.js';
import { pageOf, pathId, sendList } from '../list-params.js';

const ChannelParams = Type.Object({ channel_id: Type.String() });
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody, 429: ErrorBody };

export function channelRoutes(app: FastifyInstance, deps: { channels: ChannelService; baseUrl: string }): void {
  const { channels, baseUrl } = deps;

  app.get('/v1/channels', {
    schema: { tags: ['Channels'], summary: 'List Channels (oldest first)', querystring: ListQuery, 'x-response': { 200: Type.Array(ChannelResponse), ...errors } },
  }, async (request, reply) => {
    const account = accountOf(request);
    const { max, offset } = pageOf(request.query as { max?: number; offset?: number });
    const { channels: list, total } = await channels.list(account.id, max, offset);
    return sendList(reply, list.map((c) => channelView(c, 'list', baseUrl)), total);
  });

  app.post('/v1/channels', {
    schema: { tags: ['Channels'], summary: 'Create Channel', body: CreateChannelBody, 'x-response': { 201: ChannelResponse, ...errors, 502: ErrorBody } },
  }, async (request, reply) => {
    const channel = await channels.create(accountOf(request).id, request.body as Record<string, unknown>);
    return reply.code(201).header('Location', `${baseUrl}/channels/${channel.id}`).send(channelView(channel, 'list', baseUrl));
  });

  app.get('/v1/channels/:channel_id', {
    schema: { tags: ['Channels'], summary: 'Get Channel', params: ChannelParams, 'x-response': { 200: ChannelResponse, ...errors } },
  }, async (request) => {
    const { channel_id } = request.params as { channel_id: string };
    const channel = await channels.get(accountOf(request).id, pathId(channel_id, 'Channel'));
    return channelView(channel, 'get', baseUrl);
  });

  app.patch('/v1/channels/:channel_id', {
    schema: { tags: ['Channels'], summary: 'Update Channel (a value sets, null deletes)', params: ChannelParams, body: Type.Object({}, { additionalProperties: true, description: UpdateChannelBody.title }), 'x-body': UpdateChannelBody, 'x-response': { 200: ChannelResponse, ...errors, 502: ErrorBody } },
  }, async (request) => {
    const { channel_id } = request.params as { channel_id: string };
    const channel = await channels.update(accountOf(request).id, pathId(channel_id, 'Channel'), request.body as Record<string, unknown>);
    return channelView(channel, 'list', baseUrl);
  });

  app.delete('/v1/channels/:channel_id', {
    schema: { tags: ['Channels'], summary: 'Delete Channel and everything below it', params: ChannelParams, 'x-response': { 204: Type.Null(), ...errors } },
  }, async (request, reply) => {
    const { channel_id } = request.params as { channel_id: string };
    await channels.delete(accountOf(request).id, pathId(channel_id, 'Channel'));
    return reply.code(204).send();
  });
}
