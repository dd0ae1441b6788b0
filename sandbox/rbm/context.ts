import type { FastifyRequest } from 'fastify';
import type { Sleeper } from '../shared/sleep.js';
import { originFor } from '../shared/standin.js';
import { RpcError } from './errors.js';
import type { ResolvedRbmOptions } from './options.js';
import type { RbmState } from './state.js';
import type { RbmWebhooks } from './webhooks.js';

export interface RbContext {
  state: RbmState;
  options: ResolvedRbmOptions;
  webhooks: RbmWebhooks;
  sleeper: Sleeper;
}

export function originOf(ctx: RbContext, req: FastifyRequest): string {
  return originFor(req, ctx.options.publicBaseUrl ?? ctx.state.baseUrl);
}

export async function applyFault(ctx: RbContext, endpoint: string): Promise<void> {
  const fault = ctx.state.faults.take(endpoint);
  if (!fault) return;
  switch (fault.kind) {
    case 'timeout':
      await ctx.sleeper.sleep(fault.delayMs);
      if (fault.status !== undefined) throw new RpcError(fault.status, 'UNAVAILABLE', 'The service is currently unavailable.');
      return;
    case 'rate_limit':
      throw new RpcError(429, 'RESOURCE_EXHAUSTED', fault.message ?? 'Quota exceeded.');
    case 'server_error':
      throw new RpcError(fault.status ?? 500, (fault.status ?? 500) === 503 ? 'UNAVAILABLE' : 'INTERNAL', fault.message ?? 'Internal error encountered.');
    case 'error':
      throw new RpcError(fault.status ?? fault.code ?? 400, 'FAILED_PRECONDITION', fault.message ?? 'Injected error.');
    case 'slow_answer':
      // This stand-in does not hold answers back: the fault is used up and the request answered at once.
      return;
  }
}
