import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX, controlError, outboundView } from '../shared/control.js';
import { asRecord, optBoolean, optNumber, optString, type JsonRecord } from '../shared/values.js';
import { originOf, type SnContext } from './context.js';
import { ApiError } from './errors.js';
import { profilePicUrl, subscribeApp } from './nodes-api.js';
import { createAdmin, createPage, createUser, issuePageToken, issueShortLivedUserToken } from './model.js';
import { resetState, type SnPage, type SnUser, type TokenInvalidReason } from './state.js';
import { LONG_LIVED_SECONDS, mintToken, SHORT_LIVED_MS } from './tokens.js';
import { WEBHOOK_FIELDS } from './webhooks.js';

// Control API: app, subscription, pages, tokens, users, disconnects.

const REASONS: readonly TokenInvalidReason[] = ['deauthorized', 'password_changed', 'expired', 'logged_out'];

export function pageOr404(ctx: SnContext, req: FastifyRequest<{ Params: { pageId: string } }>, reply: FastifyReply): SnPage | undefined {
  const page = ctx.state.pages.get(req.params.pageId);
  if (!page) void controlError(reply, 404, `no page ${req.params.pageId}`);
  return page;
}

export function userOr404(
  ctx: SnContext,
  req: FastifyRequest<{ Params: { pageId: string; psid: string } }>,
  reply: FastifyReply,
): { page: SnPage; user: SnUser } | undefined {
  const page = pageOr404(ctx, req, reply);
  if (!page) return undefined;
  const user = ctx.state.users.get(req.params.psid);
  if (!user || user.pageId !== page.id) {
    void controlError(reply, 404, `no user ${req.params.psid} on page ${page.id}`);
    return undefined;
  }
  return { page, user };
}

export function userView(ctx: SnContext, user: SnUser, origin: string): JsonRecord {
  return {
    psid: user.psid,
    page_id: user.pageId,
    first_name: user.firstName,
    last_name: user.lastName,
    gender: user.gender,
    locale: user.locale,
    timezone: user.timezone,
    phone_number: user.phoneNumber,
    profile_pic: profilePicUrl(ctx, origin, user),
    blocked: user.blocked,
    started: user.started,
    last_inbound_at: user.lastInboundAt,
  };
}

export function pageView(ctx: SnContext, page: SnPage): JsonRecord {
  return {
    id: page.id,
    name: page.name,
    category: page.category,
    admin_id: page.adminId,
    connected: page.connected,
    disconnect_reason: page.disconnectReason,
    subscribed_fields: page.subscribedFields,
    profile: page.profile,
    user_count: [...ctx.state.users.values()].filter((u) => u.pageId === page.id).length,
  };
}

function reasonOf(value: unknown): TokenInvalidReason | string {
  const reason = optString(value) ?? 'password_changed';
  return (REASONS as readonly string[]).includes(reason) ? (reason as TokenInvalidReason) : `reason must be one of ${REASONS.join(', ')}`;
}

export function registerSetupRoutes(app: FastifyInstance, ctx: SnContext): void {
  const p = CONTROL_PREFIX;
  const { state } = ctx;

  app.get(`${p}/app`, async () => ({
    id: state.app.id,
    secret: state.app.secret,
    name: state.app.name,
    app_access_token: `${state.app.id}|${state.app.secret}`,
    require_appsecret_proof: state.app.requireAppSecretProof,
    profile_fields_reviewed: state.app.profileFieldsReviewed === true,
    subscription: state.app.subscription,
  }));

  app.patch(`${p}/app`, async (req) => {
    const body = asRecord(req.body);
    const secret = optString(body.secret);
    if (secret) state.app.secret = secret;
    const name = optString(body.name);
    if (name) state.app.name = name;
    const proof = optBoolean(body.require_appsecret_proof);
    if (proof !== undefined) state.app.requireAppSecretProof = proof;
    const reviewed = optBoolean(body.profile_fields_reviewed);
    if (reviewed !== undefined) state.app.profileFieldsReviewed = reviewed;
    return {
      id: state.app.id,
      secret: state.app.secret,
      name: state.app.name,
      require_appsecret_proof: state.app.requireAppSecretProof,
      profile_fields_reviewed: state.app.profileFieldsReviewed === true,
    };
  });

  // App-level webhook subscription; runs the GET handshake against the service first.
  app.put(`${p}/subscription`, async (req, reply) => {
    const body = asRecord(req.body);
    const callbackUrl = optString(body.callback_url);
    if (!callbackUrl) return controlError(reply, 400, 'callback_url is required');
    const secret = optString(body.app_secret);
    if (secret) state.app.secret = secret;
    const fields = Array.isArray(body.fields) ? body.fields.map(String) : [...WEBHOOK_FIELDS];
    const bad = fields.find((f) => !(WEBHOOK_FIELDS as readonly string[]).includes(f));
    if (bad !== undefined) return controlError(reply, 400, `unknown field ${bad}`);
    try {
      await subscribeApp(ctx, callbackUrl, optString(body.verify_token) ?? '', fields);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const handshakeId = err.extra.handshake_delivery_id;
      const record = typeof handshakeId === 'number' ? state.webhooks.get(handshakeId) : undefined;
      return controlError(reply, 422, err.message, { handshake: record ? outboundView(record) : null });
    }
    const last = state.webhooks.records[state.webhooks.records.length - 1];
    return { subscription: state.app.subscription, handshake: last ? outboundView(last) : null };
  });

  app.delete(`${p}/subscription`, async () => {
    state.app.subscription = null;
    return { subscription: null };
  });

  app.post(`${p}/pages`, async (req, reply) => {
    const body = asRecord(req.body);
    const id = optString(body.id);
    if (id !== undefined && (state.pages.has(id) || !/^\d+$/.test(id))) return controlError(reply, 400, 'id must be unused digits');
    const adminId = optString(body.admin_id);
    const existingAdmin = adminId === undefined ? undefined : state.admins.get(adminId);
    const admin = existingAdmin ?? createAdmin(ctx, optString(body.admin_name) ?? 'Sandbox Admin', adminId);
    const subscribe = body.subscribe === true ? true : Array.isArray(body.subscribe) ? body.subscribe.map(String) : false;
    const page = createPage(ctx, admin, {
      ...(id !== undefined ? { id } : {}),
      ...(optString(body.name) !== undefined ? { name: optString(body.name) } : {}),
      ...(optString(body.category) !== undefined ? { category: optString(body.category) } : {}),
      subscribe,
    });
    return reply.code(201).send({
      page: pageView(ctx, page),
      access_token: issuePageToken(ctx, page),
      admin: { id: admin.id, name: admin.name, user_access_token: issueShortLivedUserToken(ctx, admin.id), expires_in: SHORT_LIVED_MS / 1000 },
    });
  });

  app.get(`${p}/pages`, async () => ({ pages: [...state.pages.values()].map((pg) => pageView(ctx, pg)) }));

  app.get<{ Params: { pageId: string } }>(`${p}/pages/:pageId`, async (req, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    return { page: pageView(ctx, page) };
  });

  // Extra tokens: short- or long-lived user tokens of the page admin, page tokens (never / 1 h expiry).
  app.post<{ Params: { pageId: string } }>(`${p}/pages/:pageId/tokens`, async (req, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    const type = optString(asRecord(req.body).type) ?? 'user_short';
    const lifetimes: Record<string, { kind: 'user' | 'page'; ms: number | null }> = {
      user_short: { kind: 'user', ms: SHORT_LIVED_MS },
      user_long: { kind: 'user', ms: LONG_LIVED_SECONDS * 1000 },
      page: { kind: 'page', ms: null },
      page_short: { kind: 'page', ms: SHORT_LIVED_MS },
    };
    const spec = lifetimes[type];
    if (!spec) return controlError(reply, 400, `type must be one of ${Object.keys(lifetimes).join(', ')}`);
    const token = mintToken(state, spec.kind, page.adminId, spec.kind === 'page' ? page.id : null, spec.ms);
    return reply.code(201).send({ access_token: token.token, type, expires_at: token.expiresAt });
  });

  // Disconnected page: every page token answers code 190 with the reason's subcode.
  app.post<{ Params: { pageId: string } }>(`${p}/pages/:pageId/disconnect`, async (req, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    const reason = reasonOf(asRecord(req.body).reason);
    if (!(REASONS as readonly string[]).includes(reason)) return controlError(reply, 400, reason);
    page.connected = false;
    page.disconnectReason = reason as TokenInvalidReason;
    for (const t of state.tokens.values()) if (t.pageId === page.id) t.invalidReason = reason as TokenInvalidReason;
    return { page: pageView(ctx, page) };
  });

  // Reconnect (the admin logged in again): old tokens stay dead, fresh ones are issued.
  app.post<{ Params: { pageId: string } }>(`${p}/pages/:pageId/reconnect`, async (req, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    page.connected = true;
    page.disconnectReason = null;
    return {
      page: pageView(ctx, page),
      access_token: issuePageToken(ctx, page),
      user_access_token: issueShortLivedUserToken(ctx, page.adminId),
    };
  });

  app.post(`${p}/tokens/revoke`, async (req, reply) => {
    const body = asRecord(req.body);
    const token = state.tokens.get(optString(body.access_token) ?? '');
    if (!token) return controlError(reply, 404, 'unknown access_token');
    const reason = reasonOf(body.reason);
    if (!(REASONS as readonly string[]).includes(reason)) return controlError(reply, 400, reason);
    token.invalidReason = reason as TokenInvalidReason;
    return { revoked: true, reason };
  });

  app.post<{ Params: { pageId: string } }>(`${p}/pages/:pageId/users`, async (req, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    const body = asRecord(req.body);
    const psid = optString(body.psid);
    if (psid !== undefined && (state.users.has(psid) || !/^\d+$/.test(psid))) return controlError(reply, 400, 'psid must be unused digits');
    const user = createUser(ctx, page, {
      ...(psid !== undefined ? { psid } : {}),
      ...(optString(body.first_name) !== undefined ? { firstName: optString(body.first_name) } : {}),
      ...(optString(body.last_name) !== undefined ? { lastName: optString(body.last_name) } : {}),
      ...(optString(body.gender) !== undefined ? { gender: optString(body.gender) } : {}),
      ...(optString(body.locale) !== undefined ? { locale: optString(body.locale) } : {}),
      ...(optNumber(body.timezone) !== undefined ? { timezone: optNumber(body.timezone) } : {}),
      phoneNumber: optString(body.phone_number) ?? null,
      started: optBoolean(body.started) ?? false,
    });
    return reply.code(201).send({ user: userView(ctx, user, originOf(ctx, req)) });
  });

  app.get<{ Params: { pageId: string } }>(`${p}/pages/:pageId/users`, async (req, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    const origin = originOf(ctx, req);
    return { users: [...state.users.values()].filter((u) => u.pageId === page.id).map((u) => userView(ctx, u, origin)) };
  });

  app.get<{ Params: { pageId: string; psid: string } }>(`${p}/pages/:pageId/users/:psid`, async (req, reply) => {
    const found = userOr404(ctx, req, reply);
    if (!found) return reply;
    return { user: userView(ctx, found.user, originOf(ctx, req)) };
  });

  for (const [route, blocked] of [
    ['block', true],
    ['unblock', false],
  ] as const) {
    app.post<{ Params: { pageId: string; psid: string } }>(`${p}/pages/:pageId/users/:psid/${route}`, async (req, reply) => {
      const found = userOr404(ctx, req, reply);
      if (!found) return reply;
      found.user.blocked = blocked;
      return { user: userView(ctx, found.user, originOf(ctx, req)) };
    });
  }

  app.get(`${p}/state`, async (req) => {
    const origin = originOf(ctx, req);
    return {
      app: { id: state.app.id, name: state.app.name, subscription: state.app.subscription },
      pages: [...state.pages.values()].map((pg) => pageView(ctx, pg)),
      users: [...state.users.values()].map((u) => userView(ctx, u, origin)),
      sent_messages: state.sentMessages.length,
      sender_actions: state.senderActions.length,
      phone_requests: state.phoneRequests,
      user_refs: [...state.userRefs.values()],
      faults: state.faults.list(),
      clock: { now: state.clock.now(), offset_ms: state.clock.offsetMs() },
    };
  });

  app.post(`${p}/reset`, async () => {
    resetState(state);
    return { reset: true };
  });
}
