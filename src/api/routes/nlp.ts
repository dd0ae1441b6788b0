import { Type } from '@sinclair/typebox';
import type { NlpIntegrationService } from '../../domain/nlp/service.js';
import { ErrorBody } from '../../schemas/common.js';
import { NlpIntegrationInput, NlpIntegrationPatch, NlpIntegrationView, NlpParseBody, NlpParseResponse } from '../../schemas/nlp.js';
import { accountOf } from '../context.js';
import { pathId } from '../list-params.js';
import type { RoutePlugin } from '../route-group.js';

const DESCRIPTION =
  'Beyond the specification, which says only that received text messages on channels with a connected NLP integration carry `nlp`. ' +
  'A channel has at most one integration: `builtin` (trained by the service from the intents and example phrases given here, in the background; ' +
  'the model in use serves until a new one is ready) or `external` (an NLU server answering `POST {url}/model/parse`). ' +
  'Each received text waits for the engine at most `time_budget_ms`; a late or failing engine leaves `nlp` out and is counted in `stats`. See docs/nlp.md.';

const ChannelParams = Type.Object({ channel_id: Type.String() });
const TAGS = ['NLP'];

/** A channel's NLP integration (beyond the specification). */
export const nlpRoutes: RoutePlugin<{ nlp: NlpIntegrationService; baseUrl: string }> = async (app, deps) => {
  const channelOf = (raw: string) => pathId(raw, 'Channel');

  app.get(
    '/v1/channels/:channel_id/nlp',
    {
      schema: {
        tags: TAGS,
        'x-beyond-specification': true,
        operationId: 'getNlpIntegration',
        summary: "Get the channel's NLP integration, its training state and statistics",
        description: DESCRIPTION,
        params: ChannelParams,
        'x-response': { 200: NlpIntegrationView },
      },
    },
    async (request) => deps.nlp.get(accountOf(request).id, channelOf(request.params.channel_id)),
  );

  app.put(
    '/v1/channels/:channel_id/nlp',
    {
      schema: {
        tags: TAGS,
        'x-beyond-specification': true,
        operationId: 'putNlpIntegration',
        summary: 'Connect an NLP integration to the channel, or replace it (201 when created, 200 when replaced)',
        description: `${DESCRIPTION} A built-in integration whose training data changed is trained again: \`training.status\` is \`queued\`, then \`training\`, then \`ready\` (or \`failed\` with \`training.error\`).`,
        params: ChannelParams,
        body: NlpIntegrationInput,
        'x-response': { 200: NlpIntegrationView, 201: NlpIntegrationView, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      const channelId = channelOf(request.params.channel_id);
      const { view, created } = await deps.nlp.put(accountOf(request).id, channelId, request.body);
      if (!created) return view;
      return reply.code(201).header('Location', `${deps.baseUrl}/channels/${channelId}/nlp`).send(view);
    },
  );

  app.patch(
    '/v1/channels/:channel_id/nlp',
    {
      schema: {
        tags: TAGS,
        'x-beyond-specification': true,
        operationId: 'updateNlpIntegration',
        summary: "Change some fields of the channel's NLP integration (its kind changes only by a replacement)",
        description: `${DESCRIPTION} \`entities: null\` removes the entities, \`auth_token: null\` the token, \`time_budget_ms: null\` returns to the server's default.`,
        params: ChannelParams,
        body: NlpIntegrationPatch,
        'x-response': { 200: NlpIntegrationView, 422: ErrorBody },
      },
    },
    async (request) => deps.nlp.patch(accountOf(request).id, channelOf(request.params.channel_id), request.body),
  );

  app.delete(
    '/v1/channels/:channel_id/nlp',
    {
      schema: {
        tags: TAGS,
        'x-beyond-specification': true,
        operationId: 'deleteNlpIntegration',
        summary: "Remove the channel's NLP integration (received messages carry no `nlp` from then on)",
        description: DESCRIPTION,
        params: ChannelParams,
        'x-response': { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await deps.nlp.remove(accountOf(request).id, channelOf(request.params.channel_id));
      return reply.code(204).send();
    },
  );

  app.post(
    '/v1/channels/:channel_id/nlp/parse',
    {
      schema: {
        tags: TAGS,
        'x-beyond-specification': true,
        operationId: 'parseWithNlpIntegration',
        summary: "Classify a text with the channel's NLP integration, as a received message would be (not counted in its statistics)",
        description: `${DESCRIPTION} 409 while a built-in integration has no trained model; 502 when the engine fails or does not answer within the budget.`,
        params: ChannelParams,
        body: NlpParseBody,
        'x-response': { 200: NlpParseResponse, 409: ErrorBody, 422: ErrorBody, 502: ErrorBody },
      },
    },
    async (request) => deps.nlp.parse(accountOf(request).id, channelOf(request.params.channel_id), request.body.text),
  );
};
