import type { FastifyInstance } from 'fastify';
import { CONTROL_PREFIX, outboundView } from '../shared/control.js';
import type { BmContext } from './context.js';
import { botOr404, userOr404 } from './control-setup.js';

// Control API: what the platform received from the service, the update queue.

export function registerInspectRoutes(app: FastifyInstance, ctx: BmContext): void {
  const p = `${CONTROL_PREFIX}/bots/:botId`;
  const { state } = ctx;

  app.get<{ Params: { botId: string }; Querystring: { chat_id?: string } }>(`${p}/messages`, async (req, reply) => {
    const bot = botOr404(ctx, req, reply);
    if (!bot) return reply;
    const chat = req.query.chat_id === undefined ? undefined : Number(req.query.chat_id);
    return {
      messages: state.messages
        .filter((m) => m.botId === bot.id && m.fromBot && (chat === undefined || m.chatId === chat))
        .map((m) => ({ chat_id: m.chatId, message_id: m.messageId, method: m.method, params: m.params, message: m.message, deleted: m.deleted })),
    };
  });

  app.get<{ Params: { botId: string; userId: string } }>(`${p}/users/:userId/chat`, async (req, reply) => {
    const found = userOr404(ctx, req, reply);
    if (!found) return reply;
    return {
      messages: state.messages
        .filter((m) => m.botId === found.bot.id && m.chatId === found.user.id)
        .map((m) => ({ message_id: m.messageId, from_bot: m.fromBot, method: m.method, message: m.message, deleted: m.deleted })),
    };
  });

  app.get<{ Params: { botId: string }; Querystring: { chat_id?: string } }>(`${p}/chat_actions`, async (req, reply) => {
    const bot = botOr404(ctx, req, reply);
    if (!bot) return reply;
    const chat = req.query.chat_id === undefined ? undefined : Number(req.query.chat_id);
    return { chat_actions: state.chatActions.filter((a) => a.botId === bot.id && (chat === undefined || a.chatId === chat)) };
  });

  app.get<{ Params: { botId: string } }>(`${p}/callback_queries`, async (req, reply) => {
    const bot = botOr404(ctx, req, reply);
    if (!bot) return reply;
    return { callback_queries: [...state.callbackQueries.values()].filter((q) => q.botId === bot.id) };
  });

  app.get<{ Params: { botId: string } }>(`${p}/updates`, async (req, reply) => {
    const bot = botOr404(ctx, req, reply);
    if (!bot) return reply;
    return { updates: bot.updates.map((u) => ({ update_id: u.updateId, type: u.type, status: u.status, attempts: u.attempts, body: u.body })) };
  });

  app.get<{ Params: { botId: string } }>(`${p}/webhook`, async (req, reply) => {
    const bot = botOr404(ctx, req, reply);
    if (!bot) return reply;
    return { webhook: bot.webhook, pending_update_count: ctx.updates.pending(bot).length };
  });

  // Deliver the updates still pending (after failures) in order; stops at the first failure.
  app.post<{ Params: { botId: string } }>(`${p}/webhook/retry`, async (req, reply) => {
    const bot = botOr404(ctx, req, reply);
    if (!bot) return reply;
    const records = await ctx.updates.retryPending(bot);
    return { webhooks: records.map(outboundView), pending_update_count: ctx.updates.pending(bot).length };
  });
}
