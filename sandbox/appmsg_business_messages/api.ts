import type { FastifyInstance, FastifyReply } from 'fastify';
import { CONTROL_PREFIX } from '../shared/control.js';
import { randomDigits } from '../shared/ids.js';
import { isRecord, optNumber, optString, type JsonRecord } from '../shared/values.js';
import type { Sleeper } from '../shared/sleep.js';
import type { ResolvedAppmsgBusinessOptions } from './options.js';
import type { AbMessage, AppmsgBusinessState } from './state.js';
import { Rejection } from './status.js';
import { DEFAULT_TTL, KNOWN_TYPES, PROMOTIONAL_TYPES, SESSION_TYPES, TTL_MAX, TTL_MIN, validateMessage } from './validation.js';

// POST /<segment>/1/send_message: no token; the caller's IP must be whitelisted for the service id.

const SESSION_CAP = 10;
const SESSION_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface AbContext {
  state: AppmsgBusinessState;
  options: ResolvedAppmsgBusinessOptions;
  sleeper: Sleeper;
}

class HttpFailure extends Error {
  constructor(readonly httpStatus: number) {
    super(`HTTP ${httpStatus}`);
  }
}

async function applyFault(ctx: AbContext): Promise<void> {
  const fault = ctx.state.faults.take('send_message');
  if (!fault) return;
  switch (fault.kind) {
    case 'timeout':
      await ctx.sleeper.sleep(fault.delayMs);
      if (fault.status !== undefined) throw new HttpFailure(fault.status);
      return;
    case 'rate_limit':
      // No rate-limit status is public; a proxy-style 429 is the closest stand-in.
      throw new HttpFailure(429);
    case 'server_error':
      throw new HttpFailure(fault.status ?? 500);
    case 'error':
      throw new Rejection('SRVC_INTERNAL_FAILURE', fault.message, fault.code ?? 1);
    case 'slow_answer':
      // This stand-in does not hold answers back: the fault is used up and the request answered at once.
      return;
  }
}

function send(ctx: AbContext, ip: string, body: JsonRecord): JsonRecord {
  const { state } = ctx;
  const now = state.clock.now();
  const serviceId = optNumber(body.service_id);
  if (serviceId === undefined || !Number.isInteger(serviceId)) throw new Rejection('SRVC_BAD_SERVICE_ID');
  const service = state.services.get(serviceId);
  if (!service || !service.allowedIps.includes(ip)) throw new Rejection('SRVC_UNAUTHORIZED_IP');
  if (service.blocked) throw new Rejection('SRVC_SERVICE_BLOCKED');
  if (!service.billingPermitted) throw new Rejection('SRVC_NOT_PERMITTED');
  const seq = optNumber(body.seq);
  if (seq === undefined) throw new Rejection('SRVC_BAD_PARAMETERS', 'seq is required');
  const dest = optString(body.dest) ?? '';
  if (!/^\d{7,15}$/.test(dest)) throw new Rejection('SRVC_INVALID_PHONE_NUMBER');
  const label = optString(body.label) ?? 'transaction';
  if (label !== 'transaction' && label !== 'promotion') throw new Rejection('SRVC_BAD_LABEL');
  const type = optNumber(body.type);
  if (type === undefined || !KNOWN_TYPES.includes(type)) throw new Rejection('SRVC_BAD_MESSAGE_TYPE');
  // Plain transactional text (206) is closed to sender ids made after 2026-04-01: templates instead.
  if (type === 206 && !service.plainTextAllowed) throw new Rejection('SRVC_BAD_MESSAGE_TYPE', 'type 206 is deprecated: use a template (1701/1702)');
  // Promotional types are billed as promotions: they must say so.
  if (PROMOTIONAL_TYPES.includes(type) && label !== 'promotion') throw new Rejection('SRVC_BAD_LABEL', 'a promotional type needs label promotion');
  const ttl = body.ttl === undefined ? DEFAULT_TTL : optNumber(body.ttl);
  if (ttl === undefined || ttl < TTL_MIN || ttl > TTL_MAX) throw new Rejection('SRVC_INVALID_TTL');
  const message = validateMessage(type, body, state.templates);

  const user = state.users.get(dest);
  if (!user || !user.registered) throw new Rejection('SRVC_NOT_APP_USER');
  if (user.blockedServices.has(serviceId)) throw new Rejection('SRVC_USER_BLOCKED');
  if (!user.suitableDevice) throw new Rejection('SRVC_NO_SUITABLE_DEVICE');

  let sessionId: string | null = null;
  if (SESSION_TYPES.includes(type)) {
    // Session messages answer a user: at most SESSION_CAP of them until the user writes again.
    const since = user.lastReplyAt.get(serviceId);
    if (since === undefined || now - since > SESSION_WINDOW_MS) throw new Rejection('SRVC_WAIT_FOR_USER_RESPONSE');
    const used = state.messages.filter((m) => m.serviceId === serviceId && m.dest === dest && SESSION_TYPES.includes(m.type) && m.sentAt >= since).length;
    if (used >= SESSION_CAP) throw new Rejection('SRVC_WAIT_FOR_USER_RESPONSE');
    sessionId = `${serviceId}${dest}${Math.floor(since / 1000)}`.slice(0, 19);
  }
  const record: AbMessage = {
    token: randomDigits(19),
    sessionId,
    serviceId,
    dest,
    seq,
    type,
    label,
    ttl,
    trackingData: optString(message['#tracking_data']) ?? null,
    body,
    sentAt: now,
    status: 'sent',
  };
  state.messages.push(record);
  const out: JsonRecord = { status: 0, seq, message_token: record.token };
  if (sessionId !== null) out.session_id = sessionId;
  return out;
}

export function registerApi(app: FastifyInstance, ctx: AbContext): void {
  app.post<{ Params: { segment: string } }>('/:segment/1/send_message', async (req, reply: FastifyReply) => {
    if (req.params.segment !== ctx.options.pathSegment) return reply.code(404).type('text/plain').send('Not Found');
    const body = isRecord(req.body) ? req.body : {};
    try {
      await applyFault(ctx);
      if (!isRecord(req.body)) throw new Rejection('SRVC_BAD_DATA', 'body must be a JSON object');
      return send(ctx, req.ip, body);
    } catch (err) {
      if (err instanceof HttpFailure) return reply.code(err.httpStatus).type('text/plain').send('');
      if (err instanceof Rejection) {
        const out: JsonRecord = { status: err.code };
        if (body.seq !== undefined) out.seq = body.seq;
        return out;
      }
      throw err;
    }
  });

  app.setErrorHandler((err: unknown, req, reply) => {
    const e = err as { statusCode?: number; message?: string };
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(e.statusCode ?? 500).send({ error: { message: e.message ?? 'error' } });
    // Unparseable JSON: HTTP 200 with SRVC_BAD_DATA, like any other rejection.
    if (e.statusCode !== undefined && e.statusCode < 500) return reply.code(200).send({ status: 3 });
    return reply.code(500).send('');
  });
  app.setNotFoundHandler((req, reply) => {
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(404).send({ error: { message: 'no such control route' } });
    return reply.code(404).type('text/plain').send('Not Found');
  });
}
