import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX } from '../shared/control.js';
import { randomAlnum } from '../shared/ids.js';
import { asArray, asRecord, optString, type JsonRecord } from '../shared/values.js';
import { agentFor } from './auth.js';
import { registerManagement } from './management.js';
import { applyFault, type RbContext } from './context.js';
import { invalidArgument, notFound, renderRpcError, RpcError } from './errors.js';
import type { RbAgent, RbPhone } from './state.js';
import { validateAgentMessage } from './validation.js';

// The messaging API under /v1 (the management API is in management.ts).

type PhoneReq = FastifyRequest<{ Params: { phone: string }; Querystring: Record<string, string | undefined> }>;

function e164(raw: string): string {
  const phone = raw.trim();
  if (!/^\+\d{6,15}$/.test(phone)) throw invalidArgument(`Invalid phone number: ${raw}`);
  return phone;
}

/** Reachable = RCS-enabled and either the agent is launched on the phone's carrier or the phone is an accepted tester. */
export function reachable(agent: RbAgent, phone: RbPhone | undefined): phone is RbPhone {
  if (!phone || !phone.rcsEnabled) return false;
  if (agent.launch.get(phone.carrier) === 'LAUNCH_STATE_LAUNCHED') return true;
  return agent.testers.get(phone.phone) === 'ACCEPTED';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Message and event ids are client-made UUIDs. */
function uuidParam(value: string | undefined, name: string): string {
  if (!value) throw invalidArgument(`${name} is required.`);
  if (!UUID.test(value)) throw invalidArgument(`${name} must be a UUID.`);
  return value;
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}

export function registerApi(app: FastifyInstance, ctx: RbContext): void {
  const { state } = ctx;

  app.post<{ Params: { phone: string }; Querystring: Record<string, string | undefined> }>('/v1/phones/:phone/agentMessages', async (req: PhoneReq) => {
    const agent = agentFor(ctx, req, req.query.agentId);
    await applyFault(ctx, 'agentMessages');
    const phoneNumber = e164(req.params.phone);
    const messageId = uuidParam(req.query.messageId, 'messageId');
    const body = asRecord(req.body);
    const needed = validateAgentMessage(body);
    const existing = state.agentMessages.find((m) => m.agentId === agent.id && m.messageId === messageId);
    // An id an agent event used before is ignored too (the message is not sent).
    const usedByEvent = state.agentEvents.some((e) => e.agentId === agent.id && e.eventId === messageId);
    if (usedByEvent && !existing) return { name: `phones/${phoneNumber}/agentMessages/${messageId}`, sendTime: iso(state.clock.now()) };
    if (existing) {
      if (ctx.options.duplicateMessageId === 'conflict') throw new RpcError(409, 'ALREADY_EXISTS', 'Requested entity already exists');
      return {
        name: `phones/${existing.phone}/agentMessages/${existing.messageId}`,
        sendTime: iso(existing.sendTime),
        contentMessage: existing.body.contentMessage,
      };
    }
    const phone = state.phones.get(phoneNumber);
    if (!reachable(agent, phone)) throw notFound();
    const missing = [...needed].filter((f) => !phone.features.includes(f));
    if (missing.length > 0) throw invalidArgument(`The user's device does not support: ${missing.join(', ')}.`);
    const now = state.clock.now();
    state.agentMessages.push({ agentId: agent.id, phone: phoneNumber, messageId, body, sendTime: now, deliveredAt: null, readAt: null, revoked: false });
    return { name: `phones/${phoneNumber}/agentMessages/${messageId}`, sendTime: iso(now), contentMessage: body.contentMessage };
  });

  app.delete<{ Params: { phone: string; messageId: string }; Querystring: Record<string, string | undefined> }>(
    '/v1/phones/:phone/agentMessages/:messageId',
    async (req) => {
      const agent = agentFor(ctx, req, req.query.agentId);
      await applyFault(ctx, 'revoke');
      const phone = e164(req.params.phone);
      const message = state.agentMessages.find((m) => m.agentId === agent.id && m.phone === phone && m.messageId === req.params.messageId && !m.revoked);
      // A delivered message can no longer be revoked.
      if (!message || message.deliveredAt !== null) throw notFound();
      message.revoked = true;
      return {};
    },
  );

  app.post<{ Params: { phone: string }; Querystring: Record<string, string | undefined> }>('/v1/phones/:phone/agentEvents', async (req: PhoneReq) => {
    const agent = agentFor(ctx, req, req.query.agentId);
    await applyFault(ctx, 'agentEvents');
    const phoneNumber = e164(req.params.phone);
    const eventId = uuidParam(req.query.eventId, 'eventId');
    const body = asRecord(req.body);
    const eventType = optString(body.eventType);
    if (eventType !== 'READ' && eventType !== 'IS_TYPING') throw invalidArgument("Invalid value at 'agent_event.event_type'.");
    const messageId = optString(body.messageId) ?? null;
    if (eventType === 'READ' && messageId === null) throw invalidArgument('messageId is required for READ events.');
    if (!reachable(agent, state.phones.get(phoneNumber))) throw notFound();
    const now = state.clock.now();
    state.agentEvents.push({ agentId: agent.id, phone: phoneNumber, eventId, eventType, messageId, sendTime: now });
    const out: JsonRecord = { name: `phones/${phoneNumber}/agentEvents/${eventId}`, eventType };
    if (messageId !== null) out.messageId = messageId;
    out.sendTime = iso(now);
    return out;
  });

  app.get<{ Params: { phone: string }; Querystring: Record<string, string | undefined> }>('/v1/phones/:phone/capabilities', async (req) => {
    const agent = agentFor(ctx, req, req.query.agentId);
    await applyFault(ctx, 'capabilities');
    if (!req.query.requestId) throw invalidArgument('requestId is required.');
    const phone = state.phones.get(e164(req.params.phone));
    if (!reachable(agent, phone)) throw notFound();
    return { features: phone.features };
  });

  // Deprecated per-phone invite of the messaging API (the management API's testers replace it).
  app.post<{ Params: { phone: string }; Querystring: Record<string, string | undefined> }>('/v1/phones/:phone/testers', async (req) => {
    const agent = agentFor(ctx, req, req.query.agentId);
    await applyFault(ctx, 'testers');
    const phoneNumber = e164(req.params.phone);
    const phone = state.phones.get(phoneNumber);
    if (!phone || !phone.rcsEnabled) throw notFound();
    const status = agent.testers.get(phoneNumber) ?? 'PENDING';
    agent.testers.set(phoneNumber, status);
    return { name: `phones/${phoneNumber}/testers`, inviteStatus: status };
  });

  // The colon belongs to the path ("users:batchGet"); "::" escapes it for the router.
  app.post('/v1/users::batchGet', async (req) => {
    const body = asRecord(req.body);
    const agent = agentFor(ctx, req, optString(body.agentId));
    await applyFault(ctx, 'batchGet');
    const users = (asArray(body.users) ?? []).map(String);
    if (users.length > 10_000) throw invalidArgument('At most 10000 users per request.');
    return {
      reachableUsers: users.filter((u) => reachable(agent, state.phones.get(u))),
      totalRandomSampleUserCount: 0,
      reachableRandomSampleUserCount: 0,
    };
  });

  app.post<{ Querystring: Record<string, string | undefined> }>('/v1/files', async (req) => {
    const agent = agentFor(ctx, req, req.query.agentId);
    await applyFault(ctx, 'files');
    const body = asRecord(req.body);
    const fileUrl = optString(body.fileUrl);
    if (!fileUrl) throw invalidArgument('fileUrl is required.');
    const name = `files/${randomAlnum(24).toLowerCase()}`;
    state.files.set(name, { name, agentId: agent.id, fileUrl, thumbnailUrl: optString(body.thumbnailUrl) ?? null });
    return { name };
  });

  registerManagement(app, ctx);

  app.setErrorHandler((err: unknown, req, reply) => {
    const e = err as { statusCode?: number; message?: string };
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(e.statusCode ?? 500).send({ error: { message: e.message ?? 'error' } });
    const rpc =
      err instanceof RpcError
        ? err
        : e.statusCode !== undefined && e.statusCode < 500
          ? invalidArgument(e.message ?? 'Invalid request.')
          : new RpcError(500, 'INTERNAL', 'Internal error encountered.');
    const { status, body } = renderRpcError(rpc);
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((req, reply) => {
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(404).send({ error: { message: 'no such control route' } });
    const { status, body } = renderRpcError(notFound(`Method not found: ${req.method} ${req.url.split('?')[0] ?? ''}`));
    return reply.code(status).send(body);
  });
}
