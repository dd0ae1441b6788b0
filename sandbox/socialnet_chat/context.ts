import type { FastifyRequest } from 'fastify';
import type { Sleeper } from '../shared/sleep.js';
import { originFor } from '../shared/standin.js';
import { ApiError, RATE_LIMIT_MESSAGES, transientError } from './errors.js';
import type { ResolvedSocialnetChatOptions } from './options.js';
import type { SocialnetChatState } from './state.js';
import type { SocialnetWebhooks } from './webhooks.js';

// What the route modules share.
export interface SnContext {
  state: SocialnetChatState;
  options: ResolvedSocialnetChatOptions;
  webhooks: SocialnetWebhooks;
  sleeper: Sleeper;
}

export function originOf(ctx: SnContext, req: FastifyRequest): string {
  return originFor(req, ctx.options.publicBaseUrl ?? ctx.state.baseUrl);
}

/** Applies an injected fault for this endpoint: throws the platform error, or hangs and continues. */
export async function applyFault(ctx: SnContext, endpoint: string): Promise<void> {
  const fault = ctx.state.faults.take(endpoint);
  if (!fault) return;
  switch (fault.kind) {
    case 'timeout':
      await ctx.sleeper.sleep(fault.delayMs);
      if (fault.status !== undefined) throw transientError(fault.status);
      return;
    case 'rate_limit': {
      const code = fault.code ?? 613;
      const message = RATE_LIMIT_MESSAGES[code] ?? `(#${code}) Calls to this api have exceeded the rate limit.`;
      throw new ApiError(code, message, fault.subcode, 'OAuthException', fault.status ?? 400, { is_transient: true });
    }
    case 'server_error':
      throw transientError(fault.status ?? 500);
    case 'error':
      throw new ApiError(fault.code ?? 2, fault.message ?? `(#${fault.code ?? 2}) Injected error`, fault.subcode, 'OAuthException', fault.status ?? 400);
    case 'slow_answer':
      // This stand-in does not hold answers back: the fault is used up and the request answered at once.
      return;
  }
}
