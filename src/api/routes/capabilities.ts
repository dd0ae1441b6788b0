import { Type } from '@sinclair/typebox';
import type { MessageService } from '../../domain/messages/service.js';
import { CapabilitiesResponse } from '../../domain/messages/capabilities-view.js';
import { accountOf } from '../context.js';
import { pathId } from '../list-params.js';
import type { RoutePlugin } from '../route-group.js';

/** Beyond the specification: what a channel's type can send, as the API enforces it. */
export const capabilityRoutes: RoutePlugin<{ messages: MessageService }> = async (app, deps) => {
  app.get(
    '/v1/channels/:channel_id/capabilities',
    {
      schema: {
        tags: ['Channels'],
        operationId: 'getCapabilities',
        summary: 'Get Capabilities (beyond the specification)',
        'x-beyond-specification': true,
        description: 'Content types, quick replies, buttons, notifications and contact forms the channel type takes; Send Message refuses the rest with 422.',
        params: Type.Object({ channel_id: Type.String() }),
        'x-response': { 200: CapabilitiesResponse },
      },
    },
    async (request) => {
      const { channel_id } = request.params;
      return deps.messages.capabilities(accountOf(request).id, pathId(channel_id, 'Channel'));
    },
  );
};
