import type { FastifyError, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * An onError hook: an error that says when to try again (`retryAfterSeconds`: the sign-in
 * throttle, the bound on password hashing) is answered with Retry-After.
 */
export function retryAfterHeader(_request: FastifyRequest, reply: FastifyReply, error: FastifyError, done: HookHandlerDoneFunction): void {
  const seconds = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  if (typeof seconds === 'number' && seconds > 0) void reply.header('Retry-After', String(seconds));
  done();
}
