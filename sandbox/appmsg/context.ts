import type { FastifyRequest } from 'fastify';
import type { Sleeper } from '../shared/sleep.js';
import { originFor } from '../shared/standin.js';
import type { ResolvedAppmsgOptions } from './options.js';
import type { AppmsgState } from './state.js';
import { ApiStatus } from './status.js';
import type { AppmsgWebhooks } from './webhooks.js';

export interface AmContext {
  state: AppmsgState;
  options: ResolvedAppmsgOptions;
  webhooks: AppmsgWebhooks;
  sleeper: Sleeper;
}

export function originOf(ctx: AmContext, req: FastifyRequest): string {
  return originFor(req, ctx.options.publicBaseUrl ?? ctx.state.baseUrl);
}

/** An HTTP-level failure (the API itself always answers 200). */
export class HttpFailure extends Error {
  constructor(readonly httpStatus: number) {
    super(`HTTP ${httpStatus}`);
  }
}

export async function applyFault(ctx: AmContext, endpoint: string): Promise<void> {
  const fault = ctx.state.faults.take(endpoint);
  if (!fault) return;
  switch (fault.kind) {
    case 'timeout':
      await ctx.sleeper.sleep(fault.delayMs);
      if (fault.status !== undefined) throw new HttpFailure(fault.status);
      return;
    case 'rate_limit':
      throw new ApiStatus('tooManyRequests', fault.message ?? 'Too many requests');
    case 'server_error':
      throw new HttpFailure(fault.status ?? 500);
    case 'error':
      throw new ApiStatus('badData', fault.message ?? 'injected error', fault.code ?? 1);
    case 'slow_answer':
      // This stand-in does not hold answers back: the fault is used up and the request answered at once.
      return;
  }
}
