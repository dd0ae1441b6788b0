import type { FastifyRequest } from 'fastify';
import type { Sleeper } from '../shared/sleep.js';
import type { ResolvedMailproviderOptions } from './options.js';
import type { MailproviderState } from './state.js';

export interface MpContext {
  state: MailproviderState;
  options: ResolvedMailproviderOptions;
  sleeper: Sleeper;
}

/** An error answer: JSON `{"message": …}` or, for 401, the plain text the provider sends. */
export class MpError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
    readonly plain = false,
  ) {
    super(message);
  }
}

export function checkAuth(ctx: MpContext, req: FastifyRequest): void {
  const m = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  const decoded = m?.[1] === undefined ? '' : Buffer.from(m[1], 'base64').toString('utf8');
  const sep = decoded.indexOf(':');
  const user = decoded.slice(0, sep);
  const key = decoded.slice(sep + 1);
  if (sep < 0 || user !== 'api' || !ctx.state.apiKeys.has(key)) throw new MpError(401, 'Forbidden', true);
}

export async function applyFault(ctx: MpContext, endpoint: string): Promise<void> {
  const fault = ctx.state.faults.take(endpoint);
  if (!fault) return;
  switch (fault.kind) {
    case 'timeout':
      await ctx.sleeper.sleep(fault.delayMs);
      if (fault.status !== undefined) throw new MpError(fault.status, 'Internal Server Error');
      return;
    case 'rate_limit': {
      // The provider's 429 says which limit was hit and when to try again (RFC 1123 date).
      const after = new Date(ctx.state.clock.now() + (fault.retryAfter ?? 60) * 1000).toUTCString();
      throw new MpError(429, fault.message ?? `Rate limit exceeded for ${endpoint}; try again after ${after}`);
    }
    case 'server_error':
      throw new MpError(fault.status ?? 500, fault.message ?? 'Internal Server Error');
    case 'error':
      throw new MpError(fault.status ?? 400, fault.message ?? 'Injected error');
    case 'slow_answer':
      // This stand-in does not hold answers back: the fault is used up and the request answered at once.
      return;
  }
}
