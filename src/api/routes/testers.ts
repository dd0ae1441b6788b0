import { Type } from '@sinclair/typebox';
import type { TestersService } from '../../domain/platform-state/testers.js';
import { ErrorBody } from '../../schemas/common.js';
import { accountOf } from '../context.js';
import { pathId } from '../list-params.js';
import type { RoutePlugin } from '../route-group.js';

const DESCRIPTION =
  "Beyond the specification. While an rbm channel's agent is not launched, production sends reach only its testers who accepted the invitation. The invitation goes through the platform, which reports the tester's answer (`pending`, `accepted`, `declined`); List Testers reads the answers again.";

const Tester = Type.Object(
  {
    phone_number: Type.String({ description: 'E.164.' }),
    invite_state: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('declined')]),
  },
  { title: 'Tester' },
);
const ChannelParams = Type.Object({ channel_id: Type.String() });
const TesterParams = Type.Object({ channel_id: Type.String(), phone_number: Type.String() });
const InviteBody = Type.Object(
  { phone_number: Type.String({ minLength: 1, maxLength: 40, description: 'Free format; stored in E.164.' }) },
  { additionalProperties: false },
);

/** The testers of an rbm channel's agent (beyond the specification). */
export const testerRoutes: RoutePlugin<{ testers: TestersService }> = async (app, deps) => {
  app.get(
    '/v1/channels/:channel_id/testers',
    {
      schema: {
        tags: ['Channels'],
        'x-beyond-specification': true,
        operationId: 'listTesters',
        summary: 'List Testers with their invite state, as the platform reports it (rbm; beyond the specification)',
        description: DESCRIPTION,
        params: ChannelParams,
        'x-response': { 200: Type.Array(Tester), 422: ErrorBody, 502: ErrorBody },
      },
    },
    async (request) => deps.testers.list(accountOf(request).id, pathId(request.params.channel_id, 'Channel')),
  );

  app.post(
    '/v1/channels/:channel_id/testers',
    {
      schema: {
        tags: ['Channels'],
        'x-beyond-specification': true,
        operationId: 'inviteTester',
        summary: 'Invite a phone number as a tester of the agent (rbm; beyond the specification)',
        description: `${DESCRIPTION} The platform allows a limited number of invitations a day (over it: 502 with its message).`,
        params: ChannelParams,
        body: InviteBody,
        'x-response': { 201: Tester, 422: ErrorBody, 502: ErrorBody },
      },
    },
    async (request, reply) => {
      const tester = await deps.testers.invite(accountOf(request).id, pathId(request.params.channel_id, 'Channel'), request.body.phone_number);
      return reply.code(201).send(tester);
    },
  );

  app.delete(
    '/v1/channels/:channel_id/testers/:phone_number',
    {
      schema: {
        tags: ['Channels'],
        'x-beyond-specification': true,
        operationId: 'removeTester',
        summary: 'Remove a tester (rbm; beyond the specification)',
        description: DESCRIPTION,
        params: TesterParams,
        'x-response': { 204: Type.Null(), 422: ErrorBody, 502: ErrorBody },
      },
    },
    async (request, reply) => {
      await deps.testers.remove(accountOf(request).id, pathId(request.params.channel_id, 'Channel'), request.params.phone_number);
      return reply.code(204).send();
    },
  );
};
