import { Type } from '@sinclair/typebox';
import type { UserService } from '../../../domain/users/service.js';
import { userJson } from '../../../domain/users/views.js';
import { ApiError } from '../../../lib/errors.js';
import { parseId } from '../../../lib/ids.js';
import { ErrorBody } from '../../../schemas/common.js';
import { adminUserOf, type AdminUserContext } from '../../context.js';
import type { RoutePlugin } from '../../route-group.js';
import { retryAfterHeader } from './retry-after.js';
import { CreatedUserView, CreateUserBody, UserList, UserParams } from './schemas.js';

export const OWNER_ONLY_USERS = 'Only an owner can manage users.';

function ownerOnly(user: AdminUserContext): AdminUserContext {
  if (user.role !== 'owner') throw ApiError.of('forbidden', OWNER_ONLY_USERS);
  return user;
}

/** The account's users: list, add, remove. Owners only. */
export const userRoutes: RoutePlugin<{ users: UserService }> = async (app, deps) => {
  app.addHook('onError', retryAfterHeader);
  app.get(
    '/users',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminListUsers',
        summary: "The account's users (owner only)",
        'x-response': { 200: UserList, 403: ErrorBody },
      },
    },
    async (request) => {
      const me = ownerOnly(adminUserOf(request));
      return { data: (await deps.users.listUsers(me.accountId)).map(userJson) };
    },
  );

  app.post(
    '/users',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminCreateUser',
        summary: 'Add a user with a password, or get a one-time setup link (owner only)',
        body: CreateUserBody,
        'x-response': { 201: CreatedUserView, 403: ErrorBody, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      const me = ownerOnly(adminUserOf(request));
      const { user, setupLink } = await deps.users.createUser({ accountId: me.accountId, ...request.body });
      return reply.code(201).send({ ...userJson(user), ...(setupLink ? { setup_link: setupLink } : {}) });
    },
  );

  app.delete(
    '/users/:id',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminRemoveUser',
        summary: 'Remove a user of the account (owner only)',
        params: UserParams,
        'x-response': { 204: Type.Null(), 403: ErrorBody, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      const me = ownerOnly(adminUserOf(request));
      const id = parseId(request.params.id);
      if (id === null) throw ApiError.notFound('User');
      await deps.users.removeUser(me.accountId, id, me.id);
      return reply.code(204).send();
    },
  );
};
