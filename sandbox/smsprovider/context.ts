import type { FastifyRequest } from 'fastify';
import type { Sleeper } from '../shared/sleep.js';
import { originFor } from '../shared/standin.js';
import { SpError } from './errors.js';
import type { ResolvedSmsproviderOptions } from './options.js';
import type { SmsproviderState } from './state.js';
import type { SmsWebhooks } from './webhooks.js';

export interface SpContext {
  state: SmsproviderState;
  options: ResolvedSmsproviderOptions;
  webhooks: SmsWebhooks;
  sleeper: Sleeper;
}

export function originOf(ctx: SpContext, req: FastifyRequest): string {
  return originFor(req, ctx.options.publicBaseUrl ?? ctx.state.baseUrl);
}

/** Applies the endpoint's next fault; answers how long to hold the answer back after the work is done (`slow_answer`). */
export async function applyFault(ctx: SpContext, endpoint: string): Promise<number> {
  const fault = ctx.state.faults.take(endpoint);
  if (!fault) return 0;
  switch (fault.kind) {
    case 'slow_answer':
      return fault.delayMs;
    case 'timeout':
      await ctx.sleeper.sleep(fault.delayMs);
      if (fault.status !== undefined) throw new SpError(fault.status, 99, 'internal error');
      return 0;
    case 'rate_limit':
      // No published rate limit: the answer is a 429, with Retry-After when the fault gives `retry_after` (s).
      throw new SpError(
        fault.status ?? 429,
        fault.code ?? 99,
        fault.message ?? 'Too many requests',
        null,
        [],
        fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) },
      );
    case 'server_error':
      throw new SpError(fault.status ?? 500, 99, fault.message ?? 'internal error');
    case 'error':
      throw new SpError(fault.status ?? 422, fault.code ?? 21, fault.message ?? 'Bad request');
  }
}
