import type { FastifyInstance, FastifyPluginOptions } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/**
 * A group of routes (one resource, or one kind of public call): a Fastify plugin typed by the
 * TypeBox provider, so `request.body`, `params` and `query` have the types of the route's schemas
 * (validation itself stays with validator.ts). Its plugin options are its dependencies.
 */
export type RoutePlugin<Deps extends FastifyPluginOptions = Record<never, never>> = FastifyPluginAsyncTypebox<Deps>;

/** A route group with the dependencies the runtime gives it, registered by the scope of its callers (scopes.ts). */
export interface RouteGroup {
  register(scope: FastifyInstance): void;
}

export function routeGroup<Deps extends FastifyPluginOptions>(plugin: RoutePlugin<Deps>, deps: Deps): RouteGroup {
  return { register: (scope) => void scope.register(plugin, deps) };
}
