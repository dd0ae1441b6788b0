import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX } from '../shared/control.js';
import { randomAlnum } from '../shared/ids.js';
import { asArray, asRecord, isRecord, optString, type JsonRecord } from '../shared/values.js';
import { agentFor } from './auth.js';
import { applyFault, type RbContext } from './context.js';
import { invalidArgument, notFound, renderRpcError, RpcError } from './errors.js';
import type { RbAgent, RbPhone } from './state.js';
import { validateAgentMessage } from './validation.js';

// The messaging API under /v1 and the launch resource of the management API.

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

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}

export function registerApi(app: FastifyInstance, ctx: RbContext): void {
  const { state } = ctx;

  app.post<{ Params: { phone: string }; Querystring: Record<string, string | undefined> }>('/v1/phones/:phone/agentMessages', async (req: PhoneReq) => {
    const agent = agentFor(ctx, req, req.query.agentId);
    await applyFault(ctx, 'agentMessages');
    const phoneNumber = e164(req.params.phone);
    const messageId = req.query.messageId;
    if (!messageId) throw invalidArgument('messageId is required.');
    const body = asRecord(req.body);
    const needed = validateAgentMessage(body);
    const existing = state.agentMessages.find((m) => m.agentId === agent.id && m.messageId === messageId);
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
    const eventId = req.query.eventId;
    if (!eventId) throw invalidArgument('eventId is required.');
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

  const mgmt = ctx.options.managementPrefix;
  const launchView = (agent: RbAgent): JsonRecord => {
    const details: JsonRecord = {};
    for (const [carrier, launchState] of agent.launch) details[carrier] = { launchState };
    return { name: `brands/${agent.brandId}/agents/${agent.id}/launch`, [ctx.options.productKey]: { launchDetails: details } };
  };
  const mgmtAgent = (req: FastifyRequest<{ Params: { brand: string; agent: string } }>): RbAgent => {
    const agent = agentFor(ctx, req, req.params.agent);
    if (agent.brandId !== req.params.brand) throw notFound();
    return agent;
  };
  app.get<{ Params: { brand: string; agent: string } }>(`${mgmt}/v1/brands/:brand/agents/:agent`, async (req) => {
    const agent = mgmtAgent(req);
    return { name: `brands/${agent.brandId}/agents/${agent.id}`, displayName: agent.displayName, [ctx.options.productKey]: { region: agent.region } };
  });
  app.get<{ Params: { brand: string; agent: string } }>(`${mgmt}/v1/brands/:brand/agents/:agent/launch`, async (req) => launchView(mgmtAgent(req)));
  // Requesting a launch puts the listed carriers in PENDING; the control API approves or rejects.
  app.patch<{ Params: { brand: string; agent: string } }>(`${mgmt}/v1/brands/:brand/agents/:agent/launch`, async (req) => {
    const agent = mgmtAgent(req);
    await applyFault(ctx, 'launch');
    const product = asRecord(asRecord(req.body)[ctx.options.productKey]);
    const details = product.launchDetails;
    if (!isRecord(details) || Object.keys(details).length === 0)
      throw invalidArgument(`${ctx.options.productKey}.launchDetails must name at least one carrier or region.`);
    for (const carrier of Object.keys(details)) {
      const current = agent.launch.get(carrier);
      if (current !== 'LAUNCH_STATE_LAUNCHED') agent.launch.set(carrier, 'LAUNCH_STATE_PENDING');
    }
    return launchView(agent);
  });

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
