import { Type } from '@sinclair/typebox';
import type { NlpIntegrationService } from '../../../domain/nlp/service.js';
import { NlpIntegrationView } from '../../../schemas/nlp.js';
import { accountOf } from '../../context.js';
import { pathId } from '../../list-params.js';
import type { RoutePlugin } from '../../route-group.js';

/**
 * The NLP tab's question: the channel's integration, or null. The token API's Get NLP Integration
 * answers 404 for none, which a browser logs as an error on every visit of a channel without one.
 */
export const adminNlpStateRoutes: RoutePlugin<{ nlp: NlpIntegrationService }> = async (app, deps) => {
  app.get(
    '/channels/:channel_id/nlp',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminNlpState',
        summary: "The channel's NLP integration, or null when it has none",
        params: Type.Object({ channel_id: Type.String() }),
        'x-response': { 200: Type.Object({ integration: Type.Union([NlpIntegrationView, Type.Null()]) }) },
      },
    },
    async (request) => ({ integration: await deps.nlp.find(accountOf(request).id, pathId(request.params.channel_id, 'Channel')) }),
  );
};
