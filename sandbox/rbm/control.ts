import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX, controlError, outboundView } from '../shared/control.js';
import { randomAlnum, randomHex } from '../shared/ids.js';
import { summarize } from '../shared/outbound.js';
import { colorFor, makePng } from '../shared/png.js';
import { asArray, asRecord, isRecord, optBoolean, optNumber, optString, type JsonRecord } from '../shared/values.js';
import { issueToken } from './auth.js';
import { originOf, type RbContext } from './context.js';
import { carrierOf } from './management.js';
import { ALL_FEATURES, LAUNCH_STATES, VERIFICATION_STATES, type RbAgent, type RbPhone } from './state.js';
import { newId, type PushOutcome } from './webhooks.js';

// Control API: agents (service-account keys, webhook, launch, testers), phones, user traffic.

type AgentReq = FastifyRequest<{ Params: { agentId: string } }>;
type PhoneReq = FastifyRequest<{ Params: { agentId: string; phone: string } }>;

function answer(outcome: PushOutcome, payload: JsonRecord, extra: JsonRecord = {}): JsonRecord {
  if (outcome.sent) return { ...extra, payload, webhook: summarize(outcome.record) };
  return { ...extra, payload, webhook: null, webhook_skipped: outcome.reason };
}

function agentView(agent: RbAgent): JsonRecord {
  return {
    id: agent.id,
    brand_id: agent.brandId,
    display_name: agent.displayName,
    region: agent.region,
    profile: agent.profile,
    service_account_email: agent.serviceAccountEmail,
    verification: agent.verification,
    webhook: agent.webhook,
    launch: Object.fromEntries(agent.launch),
    launch_comments: Object.fromEntries(agent.launchComments ?? []),
    testers: Object.fromEntries(agent.testers),
  };
}

function serviceAccountKey(origin: string, email: string, privateKey: KeyObject): JsonRecord {
  return {
    type: 'service_account',
    project_id: 'sandbox-project',
    private_key_id: randomHex(20),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: email,
    client_id: randomHex(10),
    token_uri: `${origin}/token`,
  };
}

export function registerControl(app: FastifyInstance, ctx: RbContext): void {
  const p = CONTROL_PREFIX;
  const { state } = ctx;
  const agentOr404 = (req: AgentReq, reply: FastifyReply): RbAgent | undefined => {
    const agent = state.agents.get(req.params.agentId);
    if (!agent) void controlError(reply, 404, `no agent ${req.params.agentId}`);
    return agent;
  };

  app.post(`${p}/agents`, async (req, reply) => {
    const body = asRecord(req.body);
    const id = optString(body.id) ?? `sandbox_${randomAlnum(8).toLowerCase()}_agent`;
    if (state.agents.has(id)) return controlError(reply, 400, 'agent id in use');
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const email = `rbm-${id}@sandbox-project.iam.invalid`;
    const brandId = optString(body.brand_id) ?? randomHex(8);
    if (!state.brands.has(brandId)) state.brands.set(brandId, { id: brandId, displayName: 'Sandbox Brand', ownerEmail: email });
    const agent: RbAgent = {
      id,
      brandId,
      displayName: optString(body.display_name) ?? 'Sandbox Agent',
      region: optString(body.region) ?? 'europe',
      // An agent made in the console has its profile complete (a launch needs a contact).
      profile: {
        description: 'An agent of the sandbox.',
        phoneNumbers: [{ phoneNumber: { number: '+12223334444' }, label: 'Support' }],
        billingConfig: { billingCategory: 'CONVERSATIONAL' },
      },
      serviceAccountEmail: email,
      publicKey: createPublicKey(publicKey.export({ type: 'spki', format: 'pem' })),
      verification: optString(body.verification) ?? 'VERIFICATION_STATE_VERIFIED',
      webhook: null,
      launch: new Map((asArray(body.launched_carriers) ?? []).map((c) => [String(c), 'LAUNCH_STATE_LAUNCHED'])),
      launchComments: new Map(),
      testers: new Map(),
      testerInvites: [],
    };
    state.agents.set(id, agent);
    return reply.code(201).send({
      agent: agentView(agent),
      access_token: issueToken(ctx, [id]),
      service_account_key: serviceAccountKey(originOf(ctx, req), email, privateKey),
    });
  });

  // A partner: one service-account key for all the agents it registers through the management API.
  app.post(`${p}/partners`, async (req, reply) => {
    const name = (optString(asRecord(req.body).name) ?? `partner-${randomAlnum(6)}`).toLowerCase().replace(/[^a-z0-9-]/g, '-');
    const email = `${name}@sandbox-partner.iam.invalid`;
    if (state.partners.has(email)) return controlError(reply, 400, 'partner name in use');
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    state.partners.set(email, { email, publicKey: createPublicKey(publicKey.export({ type: 'spki', format: 'pem' })) });
    return reply.code(201).send({ partner: { email }, service_account_key: serviceAccountKey(originOf(ctx, req), email, privateKey) });
  });

  // The platform's reviewers decide on the brand verification of an agent.
  app.post<{ Params: { agentId: string } }>(`${p}/agents/:agentId/verification`, async (req, reply) => {
    const agent = agentOr404(req, reply);
    if (!agent) return reply;
    const verification = optString(asRecord(req.body).state) ?? 'VERIFICATION_STATE_VERIFIED';
    if (!(VERIFICATION_STATES as readonly string[]).includes(verification))
      return controlError(reply, 400, `state must be one of ${VERIFICATION_STATES.join(', ')}`);
    agent.verification = verification;
    return { agent: agentView(agent) };
  });

  app.get(`${p}/agents`, async () => ({ agents: [...state.agents.values()].map(agentView) }));
  app.get<{ Params: { agentId: string } }>(`${p}/agents/:agentId`, async (req, reply) => {
    const agent = agentOr404(req, reply);
    return agent ? { agent: agentView(agent) } : reply;
  });

  app.post<{ Params: { agentId: string } }>(`${p}/agents/:agentId/tokens`, async (req, reply) => {
    const agent = agentOr404(req, reply);
    return agent ? reply.code(201).send({ access_token: issueToken(ctx, [agent.id]) }) : reply;
  });

  // Webhook URL + client token, as set in the console; the handshake runs first.
  app.put<{ Params: { agentId: string } }>(`${p}/agents/:agentId/webhook`, async (req, reply) => {
    const agent = agentOr404(req, reply);
    if (!agent) return reply;
    const body = asRecord(req.body);
    const url = optString(body.url);
    const clientToken = optString(body.client_token) ?? randomAlnum(16).toUpperCase();
    if (!url) return controlError(reply, 400, 'url is required');
    const { ok, record } = await ctx.webhooks.handshake(url, clientToken);
    if (!ok) return controlError(reply, 422, 'the webhook did not echo the secret with HTTP 200', { handshake: outboundView(record) });
    agent.webhook = { url, clientToken };
    return { webhook: agent.webhook, handshake: outboundView(record) };
  });

  app.post<{ Params: { agentId: string } }>(`${p}/agents/:agentId/launch`, async (req, reply) => {
    const agent = agentOr404(req, reply);
    if (!agent) return reply;
    const body = asRecord(req.body);
    const carrier = optString(body.carrier);
    const launchState = optString(body.state) ?? 'LAUNCH_STATE_LAUNCHED';
    if (!carrier || !(LAUNCH_STATES as readonly string[]).includes(launchState))
      return controlError(reply, 400, `carrier and state (${LAUNCH_STATES.join(', ')}) are required`);
    agent.launch.set(carrierOf(carrier), launchState);
    // The reviewer's comment (a rejection's reason) goes with the decision.
    const comment = optString(body.comment);
    if (comment === undefined) agent.launchComments.delete(carrierOf(carrier));
    else agent.launchComments.set(carrierOf(carrier), comment);
    return { agent: agentView(agent) };
  });

  app.post<{ Params: { agentId: string; phone: string } }>(`${p}/agents/:agentId/testers/:phone`, async (req, reply) => {
    const agent = agentOr404(req, reply);
    if (!agent) return reply;
    const status = optString(asRecord(req.body).status) ?? 'ACCEPTED';
    if (!['PENDING', 'ACCEPTED', 'DECLINED'].includes(status)) return controlError(reply, 400, 'status must be PENDING, ACCEPTED or DECLINED');
    agent.testers.set(req.params.phone, status);
    return { agent: agentView(agent) };
  });

  app.post(`${p}/phones`, async (req, reply) => {
    const body = asRecord(req.body);
    const phone = optString(body.phone_number);
    if (!phone || !/^\+\d{6,15}$/.test(phone)) return controlError(reply, 400, 'phone_number in E.164 is required');
    const entry: RbPhone = {
      phone,
      carrier: optString(body.carrier) ?? 'sandbox-carrier',
      rcsEnabled: optBoolean(body.rcs_enabled) ?? true,
      online: optBoolean(body.online) ?? true,
      features: (asArray(body.features) ?? ALL_FEATURES).map(String),
    };
    state.phones.set(phone, entry);
    return reply.code(201).send({ phone: entry });
  });
  app.get(`${p}/phones`, async () => ({ phones: [...state.phones.values()] }));

  const route = (name: string, run: (req: PhoneReq, reply: FastifyReply, agent: RbAgent, phone: RbPhone) => Promise<unknown>): void => {
    app.post<{ Params: { agentId: string; phone: string } }>(`${p}/agents/:agentId/phones/:phone/${name}`, async (req, reply) => {
      const agent = agentOr404(req, reply);
      if (!agent) return reply;
      const phone = state.phones.get(req.params.phone);
      if (!phone) return controlError(reply, 404, `no phone ${req.params.phone}`);
      return run(req, reply, agent, phone);
    });
  };
  // The platform names the agent with its domain in what it posts (the API takes the bare id).
  const inboundAgentId = (agent: RbAgent): string => `${agent.id}@${ctx.options.agentDomain}`;
  const userMessage = async (agent: RbAgent, phone: RbPhone, content: JsonRecord): Promise<JsonRecord> => {
    const messageId = newId();
    const now = state.clock.now();
    const payload = {
      senderPhoneNumber: phone.phone,
      messageId,
      sendTime: new Date(now).toISOString(),
      agentId: inboundAgentId(agent),
      carrier: phone.carrier,
      ...content,
    };
    state.userMessages.push({ agentId: agent.id, phone: phone.phone, messageId, payload, at: now });
    return answer(await ctx.webhooks.push(agent, payload), payload);
  };
  const userEvent = async (agent: RbAgent, phone: RbPhone, eventType: string, messageId: string | null): Promise<JsonRecord> => {
    const payload: JsonRecord = { senderPhoneNumber: phone.phone, eventType, eventId: newId() };
    if (messageId !== null) payload.messageId = messageId;
    payload.sendTime = new Date(state.clock.now()).toISOString();
    payload.agentId = inboundAgentId(agent);
    return answer(await ctx.webhooks.push(agent, payload), payload);
  };

  route('messages', async (req, reply, agent, phone) => {
    const text = optString(asRecord(req.body).text);
    if (!text) return controlError(reply, 400, 'text is required');
    return userMessage(agent, phone, { text });
  });

  route('file', async (req, _reply, agent, phone) => {
    const body = asRecord(req.body);
    const fileName = optString(body.file_name) ?? 'photo.png';
    const b64 = optString(body.content_base64);
    const data = b64 !== undefined ? Buffer.from(b64, 'base64') : makePng(200, 150, colorFor(fileName));
    const mime = optString(body.mime_type) ?? 'image/png';
    const media = state.media.put(data, mime, fileName);
    const uri = originOf(ctx, req) + state.media.pathOf(media);
    return userMessage(agent, phone, {
      userFile: {
        payload: { mimeType: mime, fileSizeBytes: data.length, fileUri: uri, fileName },
        thumbnail: { mimeType: mime, fileSizeBytes: data.length, fileUri: uri },
      },
    });
  });

  route('location', async (req, reply, agent, phone) => {
    const body = asRecord(req.body);
    const latitude = optNumber(body.latitude);
    const longitude = optNumber(body.longitude);
    if (latitude === undefined || longitude === undefined) return controlError(reply, 400, 'latitude and longitude are required');
    return userMessage(agent, phone, { location: { latitude, longitude } });
  });

  // Tap a suggestion of a message the agent sent: {message_id, index, card_index?}.
  route('suggestion', async (req, reply, agent, phone) => {
    const body = asRecord(req.body);
    const sent = state.agentMessages.find((m) => m.agentId === agent.id && m.phone === phone.phone && m.messageId === optString(body.message_id));
    if (!sent) return controlError(reply, 404, 'no such agent message to this phone');
    const cm = asRecord(sent.body.contentMessage);
    const rc = asRecord(cm.richCard);
    const cardIndex = optNumber(body.card_index);
    let suggestions = asArray(cm.suggestions) ?? [];
    if (cardIndex !== undefined) {
      const card = isRecord(rc.standaloneCard)
        ? asRecord(rc.standaloneCard.cardContent)
        : asRecord(asArray(asRecord(rc.carouselCard).cardContents)?.[cardIndex]);
      suggestions = asArray(card.suggestions) ?? [];
    }
    const s = asRecord(suggestions[optNumber(body.index) ?? 0]);
    const item = isRecord(s.reply) ? s.reply : isRecord(s.action) ? s.action : undefined;
    if (!item) return controlError(reply, 400, 'no suggestion at that index');
    return userMessage(agent, phone, {
      suggestionResponse: { postbackData: optString(item.postbackData) ?? '', text: optString(item.text) ?? '', type: isRecord(s.reply) ? 'REPLY' : 'ACTION' },
    });
  });

  for (const [name, eventType] of [
    ['delivered', 'DELIVERED'],
    ['read', 'READ'],
  ] as const) {
    route(name, async (req, reply, agent, phone) => {
      const wanted = optString(asRecord(req.body).message_id);
      const now = state.clock.now();
      const targets = state.agentMessages.filter(
        (m) =>
          m.agentId === agent.id &&
          m.phone === phone.phone &&
          !m.revoked &&
          (wanted !== undefined ? m.messageId === wanted : name === 'delivered' ? m.deliveredAt === null : m.readAt === null),
      );
      if (targets.length === 0) return controlError(reply, 404, 'no matching agent message');
      const events: JsonRecord[] = [];
      for (const m of targets) {
        if (m.deliveredAt === null) m.deliveredAt = now;
        if (name === 'read') m.readAt = now;
        events.push(await userEvent(agent, phone, eventType, m.messageId));
      }
      return { events };
    });
  }

  route('typing', async (_req, _reply, agent, phone) => userEvent(agent, phone, 'IS_TYPING', null));

  app.get<{ Params: { agentId: string }; Querystring: { phone?: string } }>(`${p}/agents/:agentId/messages`, async (req, reply) => {
    const agent = agentOr404(req, reply);
    if (!agent) return reply;
    return { messages: state.agentMessages.filter((m) => m.agentId === agent.id && (req.query.phone === undefined || m.phone === req.query.phone)) };
  });
  app.get<{ Params: { agentId: string } }>(`${p}/agents/:agentId/events`, async (req, reply) => {
    const agent = agentOr404(req, reply);
    return agent ? { events: state.agentEvents.filter((e) => e.agentId === agent.id) } : reply;
  });
  app.get<{ Params: { agentId: string } }>(`${p}/agents/:agentId/files`, async (req, reply) => {
    const agent = agentOr404(req, reply);
    return agent ? { files: [...state.files.values()].filter((f) => f.agentId === agent.id) } : reply;
  });

  app.get(`${p}/state`, async () => ({
    agents: [...state.agents.values()].map(agentView),
    phones: [...state.phones.values()],
    agent_messages: state.agentMessages.length,
    user_messages: state.userMessages.length,
    faults: state.faults.list(),
  }));
  app.post(`${p}/reset`, async () => {
    state.agents.clear();
    state.partners.clear();
    state.brands.clear();
    state.phones.clear();
    state.tokens.clear();
    state.agentMessages.length = 0;
    state.agentEvents.length = 0;
    state.userMessages.length = 0;
    state.files.clear();
    state.faults.clear();
    state.requests.clear();
    state.webhooks.clear();
    state.media.clear();
    return { reset: true };
  });
}
