import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The one log line of a request, written when its answer is sent: what was asked (method and route
 * template, never the path's values, the query, a header or the body, so no token reaches it),
 * the answer and how long it took, the request id (the correlation id of what it started) and
 * the account when the guard knew it. A route adds its own outcome with `logDetail` (an inbound
 * platform call's verdict, the message a send stored).
 */
export function requestLogLine(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  const line: Record<string, unknown> = {
    reqId: request.id,
    method: request.method,
    route: request.routeOptions.url ?? null,
    status: reply.statusCode,
    ms: Math.round(reply.elapsedTime * 10) / 10,
  };
  const account = request.account?.id ?? request.adminUser?.accountId;
  if (account !== undefined) line.account = account;
  const detail = request.logDetail;
  if (detail !== undefined) for (const key in detail) line[key] = detail[key];
  return line;
}
