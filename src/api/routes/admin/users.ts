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
  app.get('/users', { schema: { hide: true, 'x-response': { 200: UserList, 403: ErrorBody } } }, async (request) => {
    const me = ownerOnly(adminUserOf(request));
    return { data: (await deps.users.listUsers(me.accountId)).map(userJson) };
  });

  app.post(
    '/users',
    { schema: { hide: true, body: CreateUserBody, 'x-response': { 201: CreatedUserView, 403: ErrorBody, 422: ErrorBody } } },
    async (request, reply) => {
      const me = ownerOnly(adminUserOf(request));
      const { user, setupLink } = await deps.users.createUser({ accountId: me.accountId, ...request.body });
      return reply.code(201).send({ ...userJson(user), ...(setupLink ? { setup_link: setupLink } : {}) });
    },
  );

  app.delete(
    '/users/:id',
    { schema: { hide: true, params: UserParams, 'x-response': { 403: ErrorBody, 404: ErrorBody, 422: ErrorBody } } },
    async (request, reply) => {
      const me = ownerOnly(adminUserOf(request));
      const id = parseId(request.params.id);
      if (id === null) throw ApiError.notFound('User');
      await deps.users.removeUser(me.accountId, id, me.id);
      return reply.code(204).send();
    },
  );
};
