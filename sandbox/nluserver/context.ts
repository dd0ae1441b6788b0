import type { FastifyRequest } from 'fastify';
import type { Sleeper } from '../shared/sleep.js';
import { ConnectionDrop, NluError, noAgent, notAuthenticated } from './errors.js';
import type { ResolvedNluserverOptions } from './options.js';
import type { NluModel, NluserverState } from './state.js';

export interface NluContext {
  state: NluserverState;
  options: ResolvedNluserverOptions;
  sleeper: Sleeper;
}

/** Token auth as with the server's `--auth-token`: `?token=` must match when a token is set. */
export function checkToken(ctx: NluContext, req: FastifyRequest): void {
  const token = ctx.state.token;
  if (token === null) return;
  const raw = (req.query as Record<string, unknown>).token;
  const given = Array.isArray(raw) ? (raw[0] as unknown) : raw;
  if (given !== token) throw notAuthenticated();
}

export function loadedModel(ctx: NluContext): NluModel {
  if (ctx.state.model === null) throw noAgent();
  return ctx.state.model;
}

/**
 * Applies the endpoint's next fault; answers how long to hold the answer back after the work is
 * done (`slow_answer`). A fault with `status: 0` closes the connection instead of answering.
 */
export async function applyFault(ctx: NluContext, endpoint: string): Promise<number> {
  const fault = ctx.state.faults.take(endpoint);
  if (!fault) return 0;
  const fail = (status: number, reason: string, message: string, headers: Record<string, string> = {}): never => {
    if (status === 0) throw new ConnectionDrop();
    throw new NluError(status, reason, message, {}, headers);
  };
  const unexpected = `An unexpected error occurred. Error: ${fault.message ?? 'injected fault'}`;
  // The server's 500 of a parse that broke is a ParsingError; of anything else an UnexpectedError.
  const serverReason = endpoint === 'parse' ? 'ParsingError' : 'UnexpectedError';
  switch (fault.kind) {
    case 'slow_answer':
      return fault.delayMs;
    case 'timeout':
      await ctx.sleeper.sleep(fault.delayMs);
      if (fault.status !== undefined) fail(fault.status, serverReason, unexpected);
      return 0;
    case 'rate_limit':
      // The server has no rate limit of its own; a proxy in front of it would answer this.
      return fail(
        fault.status ?? 429,
        'TooManyRequests',
        fault.message ?? 'Too many requests',
        fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) },
      );
    case 'server_error':
      return fail(fault.status ?? 500, serverReason, unexpected);
    case 'error':
      return fail(fault.status ?? 400, 'BadRequest', fault.message ?? 'Injected error');
  }
}
