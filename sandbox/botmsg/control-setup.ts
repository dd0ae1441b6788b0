import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX, controlError } from '../shared/control.js';
import { randomAlnum, randomDigits } from '../shared/ids.js';
import { asRecord, optBoolean, optNumber, optString, type JsonRecord } from '../shared/values.js';
import { type BmContext } from './context.js';
import { resetState, userKey, type BmBot, type BmUser } from './state.js';

// Control API: bots, tokens, users.

export function newToken(botId: number): string {
  return `${botId}:AA${randomAlnum(33)}`;
}

export function botOr404(ctx: BmContext, req: FastifyRequest<{ Params: { botId: string } }>, reply: FastifyReply): BmBot | undefined {
  const bot = ctx.state.bots.get(Number(req.params.botId));
  if (!bot) void controlError(reply, 404, `no bot ${req.params.botId}`);
  return bot;
}

export function userOr404(
  ctx: BmContext,
  req: FastifyRequest<{ Params: { botId: string; userId: string } }>,
  reply: FastifyReply,
): { bot: BmBot; user: BmUser } | undefined {
  const bot = botOr404(ctx, req, reply);
  if (!bot) return undefined;
  const user = ctx.state.users.get(userKey(bot.id, Number(req.params.userId)));
  if (!user) {
    void controlError(reply, 404, `no user ${req.params.userId} for bot ${bot.id}`);
    return undefined;
  }
  return { bot, user };
}

export function botView(ctx: BmContext, bot: BmBot): JsonRecord {
  return {
    id: bot.id,
    token: bot.token,
    username: bot.username,
    first_name: bot.firstName,
    webhook: bot.webhook,
    allowed_updates: bot.allowedUpdates,
    pending_update_count: ctx.updates.pending(bot).length,
  };
}

export function controlUserView(user: BmUser): JsonRecord {
  return {
    id: user.id,
    bot_id: user.botId,
    first_name: user.firstName,
    last_name: user.lastName,
    username: user.username,
    language_code: user.languageCode,
    phone_number: user.phoneNumber,
    started: user.started,
    blocked: user.blocked,
    deactivated: user.deactivated,
  };
}

export function registerSetupRoutes(app: FastifyInstance, ctx: BmContext): void {
  const p = CONTROL_PREFIX;
  const { state } = ctx;

  app.post(`${p}/bots`, async (req, reply) => {
    const body = asRecord(req.body);
    const id = optNumber(body.id) ?? Number(randomDigits(10));
    if (!Number.isSafeInteger(id) || id <= 0 || state.bots.has(id)) return controlError(reply, 400, 'id must be an unused positive integer');
    const username = optString(body.username) ?? `sandbox_${randomAlnum(6).toLowerCase()}_bot`;
    const bot: BmBot = {
      id,
      token: optString(body.token) ?? newToken(id),
      revokedTokens: [],
      username,
      firstName: optString(body.first_name) ?? 'Sandbox Bot',
      canJoinGroups: optBoolean(body.can_join_groups) ?? true,
      canReadAllGroupMessages: optBoolean(body.can_read_all_group_messages) ?? false,
      supportsInlineQueries: optBoolean(body.supports_inline_queries) ?? false,
      webhook: null,
      allowedUpdates: null,
      nextUpdateId: Number(randomDigits(6)),
      updates: [],
    };
    state.bots.set(bot.id, bot);
    return reply.code(201).send({ bot: botView(ctx, bot), token: bot.token });
  });

  app.get(`${p}/bots`, async () => ({ bots: [...state.bots.values()].map((b) => botView(ctx, b)) }));

  app.get<{ Params: { botId: string } }>(`${p}/bots/:botId`, async (req, reply) => {
    const bot = botOr404(ctx, req, reply);
    if (!bot) return reply;
    return { bot: botView(ctx, bot) };
  });

  // The owner revokes the token: the old one answers 401 from now on.
  app.post<{ Params: { botId: string } }>(`${p}/bots/:botId/revoke_token`, async (req, reply) => {
    const bot = botOr404(ctx, req, reply);
    if (!bot) return reply;
    bot.revokedTokens.push(bot.token);
    bot.token = newToken(bot.id);
    return { token: bot.token, revoked: bot.revokedTokens };
  });

  app.post<{ Params: { botId: string } }>(`${p}/bots/:botId/users`, async (req, reply) => {
    const bot = botOr404(ctx, req, reply);
    if (!bot) return reply;
    const body = asRecord(req.body);
    const id = optNumber(body.id) ?? Number(randomDigits(9));
    if (!Number.isSafeInteger(id) || id <= 0 || state.users.has(userKey(bot.id, id))) return controlError(reply, 400, 'id must be an unused positive integer');
    const user: BmUser = {
      id,
      botId: bot.id,
      firstName: optString(body.first_name) ?? 'Alex',
      lastName: optString(body.last_name) ?? null,
      username: optString(body.username) ?? null,
      languageCode: optString(body.language_code) ?? 'en',
      phoneNumber: optString(body.phone_number) ?? null,
      started: optBoolean(body.started) ?? false,
      blocked: false,
      deactivated: false,
      nextMessageId: 1,
    };
    state.users.set(userKey(bot.id, id), user);
    return reply.code(201).send({ user: controlUserView(user) });
  });

  app.get<{ Params: { botId: string } }>(`${p}/bots/:botId/users`, async (req, reply) => {
    const bot = botOr404(ctx, req, reply);
    if (!bot) return reply;
    return { users: [...state.users.values()].filter((u) => u.botId === bot.id).map(controlUserView) };
  });

  app.get<{ Params: { botId: string; userId: string } }>(`${p}/bots/:botId/users/:userId`, async (req, reply) => {
    const found = userOr404(ctx, req, reply);
    if (!found) return reply;
    return { user: controlUserView(found.user) };
  });

  app.post<{ Params: { botId: string; userId: string } }>(`${p}/bots/:botId/users/:userId/deactivate`, async (req, reply) => {
    const found = userOr404(ctx, req, reply);
    if (!found) return reply;
    found.user.deactivated = true;
    return { user: controlUserView(found.user) };
  });

  app.get(`${p}/state`, async () => ({
    bots: [...state.bots.values()].map((b) => botView(ctx, b)),
    users: [...state.users.values()].map(controlUserView),
    messages: state.messages.length,
    files: state.files.size,
    faults: state.faults.list(),
    clock: { now: state.clock.now(), offset_ms: state.clock.offsetMs() },
  }));

  app.post(`${p}/reset`, async () => {
    resetState(state);
    return { reset: true };
  });
}
