import { Type } from '@sinclair/typebox';
import { TOKEN_NAME_MAX, type AccountService } from '../../../domain/accounts/service.js';
import { ApiError } from '../../../lib/errors.js';
import { ErrorBody, IdString, Timestamp } from '../../../schemas/common.js';
import { accountOf } from '../../context.js';
import { pathId } from '../../list-params.js';
import type { RoutePlugin } from '../../route-group.js';
import { requireOwner } from './owner.js';

const TokenResponse = Type.Object({
  id: IdString,
  name: Type.String({ description: 'What the account calls the token (`token <prefix>` for tokens made before names).' }),
  prefix: Type.Union([Type.String(), Type.Null()], { description: "The token's first characters, to tell tokens apart." }),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()], { description: 'To within about a minute; null when never used.' }),
});
const CreatedTokenResponse = Type.Object({
  ...TokenResponse.properties,
  access_token: Type.String({ description: 'The token itself: shown this once, never stored.' }),
});
const CreateTokenBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: TOKEN_NAME_MAX }) });
const TokenParams = Type.Object({ token_id: Type.String() });

/** The account's access tokens in the administration app: listed by name, made (shown once) and revoked by an owner. */
export const adminTokenRoutes: RoutePlugin<{ accounts: AccountService }> = async (app, deps) => {
  const { accounts } = deps;

  app.get(
    '/tokens',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminListTokens',
        summary: "The account's live tokens, oldest first (never the token itself)",
        'x-response': { 200: Type.Object({ data: Type.Array(TokenResponse) }) },
      },
    },
    async (request) => ({ data: await accounts.listLiveTokens(accountOf(request).id) }),
  );

  app.post(
    '/tokens',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminCreateToken',
        summary: 'Make a named token (owner only); the answer is the only place the token is shown',
        body: CreateTokenBody,
        'x-response': { 201: CreatedTokenResponse, 403: ErrorBody },
      },
    },
    async (request, reply) => {
      requireOwner(request, 'tokens');
      const made = await accounts.createToken(accountOf(request).id, request.body.name);
      return reply.code(201).send({ ...made.view, access_token: made.accessToken });
    },
  );

  app.delete(
    '/tokens/:token_id',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminRevokeToken',
        summary: 'Revoke a token (owner only); it stops working at once',
        params: TokenParams,
        'x-response': { 204: Type.Null(), 403: ErrorBody },
      },
    },
    async (request, reply) => {
      requireOwner(request, 'tokens');
      const id = pathId(request.params.token_id, 'Token');
      if (!(await accounts.revokeAccountToken(accountOf(request).id, id))) throw ApiError.notFound('Token');
      return reply.code(204).send();
    },
  );
};
