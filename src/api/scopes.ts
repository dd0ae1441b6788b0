import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { notFoundHandler } from './errors.js';
import type { RouteGroup } from './route-group.js';
import type { RouteTable } from './route-table.js';
import { tokenGuard, type GuardDeps } from './token-guard.js';
import { adminApiHeaders, adminGuard, releaseAdminSlot, type AdminGuardDeps } from './admin-guard.js';

/** Where the admin scope's routes live: the app-only groups and the token groups mounted again. */
export const ADMIN_API_PREFIX = '/admin/api';
const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The route groups of each kind of caller. */
export interface ScopedRoutes {
  /** Health checks, the API documentation, stored files, widget assets, platform callbacks. */
  public: RouteGroup[];
  /** The `/v1` API of an account. */
  token: RouteGroup[];
  /** What only the administration app needs (session, users, tokens, usage...), under /admin/api. */
  admin: RouteGroup[];
}

/**
 * The routes in one Fastify scope per kind of caller, each scope owning its guard. Fastify's
 * encapsulation gives a scope's hooks to its own routes only: public routes run none of the token
 * scope's, and the guard is decided by the route a request matched, never by the URL text.
 *
 * - public: no guard of ours. Each caller proves itself inside its routes: a stored file's
 *   unguessable id, a platform's signature checked by its connector (unknown channels and
 *   endpoints answer one uniform 404).
 * - token: the account token, the hourly quota and the concurrency cap (token-guard.ts), with the
 *   X-RateLimit headers.
 * - unmatched under `/v1`: a not-found handler of its own behind the token guard, so a request
 *   without a token learns nothing of which paths exist and one with a token is counted; only a
 *   path whose every method is public is told its methods without one (405).
 *
 * - admin: the administration app's API under /admin/api: the app-only groups and every token
 *   group a second time (`/admin/api/v1/channels`), with the same bodies, errors and tenant
 *   rules; its guard (admin-guard.ts) sets the account from the session cookie instead of a
 *   token, checks the CSRF token and the Origin on changes, and counts the hourly quota. A path
 *   under /admin/api that matches no route is answered behind the same guard (401 without a
 *   session), by a catch-all route that stays out of the route table.
 */
export async function registerScopes(
  app: FastifyInstance,
  routes: ScopedRoutes,
  deps: { guard: GuardDeps; table: RouteTable; admin: AdminGuardDeps },
): Promise<void> {
  const { table } = deps;
  const { guard, release } = tokenGuard(deps.guard);
  // Callback hooks: an async one costs a promise per request for a counter decrement.
  const releaseOnResponse = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    release(request);
    done();
  };
  const releaseOnAbort = (request: FastifyRequest, done: HookHandlerDoneFunction) => {
    release(request);
    done();
  };

  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      if (!route.config?.notInRouteTable) table.add(route, 'public');
    });
    for (const group of routes.public) group.register(scope);
  });

  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => table.add(route, 'token'));
    scope.addHook('onRequest', guard);
    scope.addHook('onResponse', releaseOnResponse);
    scope.addHook('onRequestAbort', releaseOnAbort);
    for (const group of routes.token) group.register(scope);
  });

  const needsToken = (request: FastifyRequest): boolean => {
    const others = table.others(request.method, request.url);
    return others.length === 0 || others.some((o) => o.scope !== 'public');
  };
  await app.register(
    async (unmatched) => {
      unmatched.addHook('onRequest', (request, reply, done) => {
        if (!needsToken(request)) return done();
        guard(request, reply).then(() => done(), done);
      });
      unmatched.addHook('onResponse', releaseOnResponse);
      unmatched.addHook('onRequestAbort', releaseOnAbort);
      unmatched.setNotFoundHandler(notFoundHandler(table));
    },
    { prefix: '/v1' },
  );

  const unmatchedAdmin = notFoundHandler(table);
  await app.register(
    async (scope) => {
      scope.addHook('onRoute', (route) => {
        if (!route.config?.notInRouteTable) table.add(route, 'admin');
      });
      scope.addHook('onRequest', adminApiHeaders);
      scope.addHook('onRequest', adminGuard(deps.admin));
      const releaseAdmin = releaseAdminSlot(deps.admin.sessionLimits);
      scope.addHook('onResponse', (request, _reply, done) => {
        releaseAdmin(request);
        done();
      });
      scope.addHook('onRequestAbort', (request, done) => {
        releaseAdmin(request);
        done();
      });
      for (const group of [...routes.admin, ...routes.token]) group.register(scope);
      for (const url of ['/', '/*']) {
        scope.route({
          method: [...ALL_METHODS],
          url,
          schema: { hide: true },
          config: { notInRouteTable: true },
          handler: (request, reply) => unmatchedAdmin(request, reply),
        });
      }
    },
    { prefix: ADMIN_API_PREFIX },
  );
}
