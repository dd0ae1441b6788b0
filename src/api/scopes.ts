import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { notFoundHandler } from './errors.js';
import type { RouteGroup } from './route-group.js';
import type { RouteTable } from './route-table.js';
import { tokenGuard, type GuardDeps } from './token-guard.js';

/** The route groups of each kind of caller. */
export interface ScopedRoutes {
  /** Health checks, the API documentation, stored files, widget assets, platform callbacks. */
  public: RouteGroup[];
  /** The `/v1` API of an account. */
  token: RouteGroup[];
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
 * The administration (a session cookie and a CSRF token, issue 14) becomes a third scope here:
 * its routes under their own prefix, its guard as that scope's onRequest hook, its own
 * not-found handler, and its name in ScopeName.
 */
export async function registerScopes(app: FastifyInstance, routes: ScopedRoutes, deps: { guard: GuardDeps; table: RouteTable }): Promise<void> {
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
    scope.addHook('onRoute', (route) => table.add(route, 'public'));
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
}
