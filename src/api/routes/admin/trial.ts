import { Type } from '@sinclair/typebox';
import { TRIAL_TEXT_MAX, type TrialService } from '../../../domain/trial/service.js';
import { ErrorBody, IdString } from '../../../schemas/common.js';
import { accountOf } from '../../context.js';
import { pathId } from '../../list-params.js';
import type { RoutePlugin } from '../../route-group.js';

const TrialStatus = Type.Object({
  available: Type.Boolean({ description: 'Whether the platform stand-ins run (SANDBOX_URL is set).' }),
  sandbox_url: Type.Union([Type.String(), Type.Null()]),
});
const TrialMessageBody = Type.Object({
  text: Type.String({ minLength: 1, maxLength: TRIAL_TEXT_MAX }),
  contact: Type.Optional(IdString),
});

/**
 * The local trial: the channel's platform stand-in, through its control API, acts as an end user
 * writing to the channel. The server calls the stand-in; the browser never does.
 */
export const adminTrialRoutes: RoutePlugin<{ trial: TrialService }> = async (app, deps) => {
  const { trial } = deps;

  app.get(
    '/trial',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminTrialStatus',
        summary: 'Whether the local trial is available',
        'x-response': { 200: TrialStatus },
      },
    },
    async () => trial.status(),
  );

  app.post(
    '/trial/channels/:channel_id/messages',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminTrialMessage',
        summary: "Have the channel's stand-in send this text to the channel as an end user",
        description:
          "Without `contact`, the channel's trial user writes (made on the stand-in when missing). Answers once the service stored the message, with the contact it came from. 422 when the channel's type has no trial (service_chat is tried with its widget), 502 when the stand-in or the inbound call failed.",
        params: Type.Object({ channel_id: Type.String() }),
        body: TrialMessageBody,
        'x-response': {
          202: Type.Object({ contact_id: Type.Union([IdString, Type.Null()]) }),
          422: ErrorBody,
          502: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { text, contact } = request.body;
      const answer = await trial.send(accountOf(request).id, pathId(request.params.channel_id, 'Channel'), { text, contact });
      return reply.code(202).send(answer);
    },
  );
};
