import { Type } from '@sinclair/typebox';
import type { RateLimiter } from '../../../domain/limits/rate-limiter.js';
import { isoTime } from '../../../lib/clock.js';
import { Timestamp } from '../../../schemas/common.js';
import { accountOf } from '../../context.js';
import type { RoutePlugin } from '../../route-group.js';

const UsageResponse = Type.Object({
  plan: Type.String(),
  hourly_limit: Type.Integer({ description: 'Requests the account may make per hour.' }),
  concurrency: Type.Integer({ description: 'Requests the account may have in flight at once (per server process).' }),
  window_start: Timestamp,
  used_this_hour: Type.Integer({ description: 'Requests counted in the current window, this one included when the app scope counts it.' }),
  remaining: Type.Integer(),
});

/** The plan's limits and this hour's usage. */
export const adminUsageRoutes: RoutePlugin<{ rateLimiter: RateLimiter }> = async (app, deps) => {
  app.get(
    '/usage',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminUsage',
        summary: "The plan's limits and the current hour's usage of the account",
        'x-response': { 200: UsageResponse },
      },
    },
    async (request) => {
      const account = accountOf(request);
      const usage = await deps.rateLimiter.usage(account.id, account.hourlyLimit);
      return {
        plan: account.plan,
        hourly_limit: account.hourlyLimit,
        concurrency: account.concurrency,
        window_start: isoTime(usage.windowStart),
        used_this_hour: usage.used,
        remaining: usage.remaining,
      };
    },
  );
};
