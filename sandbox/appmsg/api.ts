import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { stringifyWithBigInts } from '../shared/big-json.js';
import { CONTROL_PREFIX } from '../shared/control.js';
import { asArray, asRecord, optBoolean, optString, type JsonRecord } from '../shared/values.js';
import { applyFault, HttpFailure, type AmContext } from './context.js';
import { validateMessage } from './send-validation.js';
import type { AmBot, AmSentMessage, AmUser } from './state.js';
import { userKey } from './state.js';
import { ApiStatus, statusBody } from './status.js';
import { CHAT_HOSTNAME, FILTERABLE_EVENTS } from './webhooks.js';

// POST {base}/pa/<endpoint>, JSON in and out, auth token header, HTTP 200 with `status`.

const HOUR_MS = 60 * 60 * 1000;
const UNANSWERED_LIMIT = 100;
const DETAILS_LIMIT = 2;
const DETAILS_WINDOW_MS = 12 * HOUR_MS;

type Handler = (ctx: AmContext, bot: AmBot, body: JsonRecord, rawSize: number) => Promise<JsonRecord>;

function ok(extra: JsonRecord = {}): JsonRecord {
  return { status: 0, status_message: 'ok', ...extra };
}

function user(ctx: AmContext, bot: AmBot, id: string): AmUser | undefined {
  return ctx.state.users.get(userKey(bot.id, id));
}

/** Checks whether the bot may message this user now; returns the user or throws the status. */
function receiverFor(ctx: AmContext, bot: AmBot, receiver: string): AmUser {
  const u = user(ctx, bot, receiver);
  if (!u || !u.registered) throw new ApiStatus('receiverNotRegistered');
  if (!u.subscribed) throw new ApiStatus('receiverNotSubscribed');
  const now = ctx.state.clock.now();
  const since = Math.max(u.lastInboundAt ?? 0, now - HOUR_MS);
  const unanswered = ctx.state.sent.filter((m) => m.botId === bot.id && m.receiver === u.id && m.sentAt > since).length;
  if (unanswered >= UNANSWERED_LIMIT) throw new ApiStatus('tooManyRequests', 'Too many requests');
  return u;
}

export function recordSent(ctx: AmContext, bot: AmBot, receiver: string, body: JsonRecord, source: AmSentMessage['source']): AmSentMessage {
  const sent: AmSentMessage = {
    token: ctx.webhooks.nextToken(),
    botId: bot.id,
    receiver,
    body,
    source,
    sentAt: ctx.state.clock.now(),
    deliveredAt: null,
    seenAt: null,
    failed: null,
  };
  ctx.state.sent.push(sent);
  return sent;
}

const setWebhook: Handler = async (ctx, bot, body) => {
  const url = optString(body.url);
  if (url === undefined) throw new ApiStatus('missingData', 'url is missing');
  if (url === '') {
    bot.webhook = null;
    return ok();
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ApiStatus('invalidUrl', 'Invalid URL');
  }
  if (ctx.options.requireHttpsWebhook && parsed.protocol !== 'https:') throw new ApiStatus('invalidUrl', 'Invalid URL: https is required');
  const eventTypes = body.event_types === undefined ? [...FILTERABLE_EVENTS] : (asArray(body.event_types) ?? []).map(String);
  const unknown = eventTypes.find((e) => !FILTERABLE_EVENTS.includes(e) && e !== 'message');
  if (unknown !== undefined) throw new ApiStatus('badData', `unknown event type ${unknown}`);
  // The platform calls the URL once and needs HTTP 200 before it accepts it.
  const check = await ctx.webhooks.post(bot, url, {
    event: 'webhook',
    timestamp: ctx.state.clock.now(),
    chat_hostname: CHAT_HOSTNAME,
    message_token: ctx.webhooks.nextToken(),
  });
  if (check.status !== 200) throw new ApiStatus('invalidUrl', `Result[HttpResponse(${check.status ?? 'no response'})]`);
  bot.webhook = {
    url,
    eventTypes: eventTypes.filter((e) => e !== 'message'),
    sendName: optBoolean(body.send_name) ?? true,
    sendPhoto: optBoolean(body.send_photo) ?? true,
  };
  return ok({ event_types: bot.webhook.eventTypes });
};

const sendMessage: Handler = async (ctx, bot, body, rawSize) => {
  if (!bot.webhook) throw new ApiStatus('webhookNotSet');
  const receiver = optString(body.receiver);
  if (receiver === undefined || receiver === '') throw new ApiStatus('missingData', 'receiver is missing');
  validateMessage(body, rawSize);
  const u = receiverFor(ctx, bot, receiver);
  if ((Number(body.min_api_version) || 1) > u.apiVersion) throw new ApiStatus('receiverNoSuitableDevice');
  const sent = recordSent(ctx, bot, u.id, body, 'send_message');
  return ok({ message_token: sent.token, chat_hostname: CHAT_HOSTNAME, billing_status: 1 });
};

const broadcastMessage: Handler = async (ctx, bot, body, rawSize) => {
  if (!bot.webhook) throw new ApiStatus('webhookNotSet');
  const list = asArray(body.broadcast_list);
  if (!list || list.length === 0) throw new ApiStatus('missingData', 'broadcast_list is missing');
  if (list.length > 300) throw new ApiStatus('badData', 'broadcast_list is limited to 300 receivers');
  validateMessage(body, rawSize);
  const token = ctx.webhooks.nextToken();
  const failed: JsonRecord[] = [];
  for (const id of list.map(String)) {
    try {
      receiverFor(ctx, bot, id);
      const sent = recordSent(ctx, bot, id, body, 'broadcast_message');
      sent.token = token;
    } catch (err) {
      if (!(err instanceof ApiStatus)) throw err;
      failed.push({ receiver: id, status: err.code, status_message: err.message });
    }
  }
  return ok({ message_token: token, failed_list: failed });
};

const getAccountInfo: Handler = async (ctx, bot) =>
  ok({
    id: bot.id,
    name: bot.name,
    uri: bot.uri,
    icon: bot.icon,
    background: bot.background,
    category: bot.category,
    subcategory: bot.subcategory,
    location: bot.location,
    country: bot.country,
    webhook: bot.webhook?.url ?? '',
    event_types: bot.webhook?.eventTypes ?? [],
    subscribers_count: [...ctx.state.users.values()].filter((u) => u.botId === bot.id && u.subscribed).length,
    members: [{ id: `${bot.id}-admin`, name: 'Sandbox Admin', avatar: '', role: 'admin' }],
  });

const getUserDetails: Handler = async (ctx, bot, body) => {
  const id = optString(body.id);
  if (!id) throw new ApiStatus('missingData', 'id is missing');
  const u = user(ctx, bot, id);
  if (!u || !u.registered) throw new ApiStatus('receiverNotRegistered');
  const now = ctx.state.clock.now();
  u.detailCalls = u.detailCalls.filter((t) => now - t < DETAILS_WINDOW_MS);
  if (u.detailCalls.length >= DETAILS_LIMIT) throw new ApiStatus('tooManyRequests', 'Too many requests');
  u.detailCalls.push(now);
  return ok({
    message_token: ctx.webhooks.nextToken(),
    user: {
      id: u.id,
      name: u.name,
      avatar: u.avatar,
      country: u.country,
      language: u.language,
      primary_device_os: u.primaryDeviceOs,
      api_version: u.apiVersion,
      [ctx.options.clientVersionField]: '21.4.0.0',
      mcc: 230,
      mnc: 1,
      device_type: u.deviceType,
    },
  });
};

const getOnline: Handler = async (ctx, bot, body) => {
  const ids = asArray(body.ids);
  if (!ids || ids.length === 0) throw new ApiStatus('missingData', 'ids is missing');
  if (ids.length > 100) throw new ApiStatus('badData', 'ids is limited to 100');
  return ok({
    users: ids.map(String).map((id) => {
      const u = user(ctx, bot, id);
      if (!u) return { id, online_status: 3, online_status_message: 'unavailable' };
      return u.online
        ? { id, online_status: 0, online_status_message: 'online' }
        : { id, online_status: 1, online_status_message: 'offline', last_online: u.lastInboundAt ?? 0 };
    }),
  });
};

const HANDLERS: Record<string, Handler> = {
  set_webhook: setWebhook,
  send_message: sendMessage,
  broadcast_message: broadcastMessage,
  get_account_info: getAccountInfo,
  get_user_details: getUserDetails,
  get_online: getOnline,
};

export function botForToken(ctx: AmContext, token: string): AmBot | undefined {
  for (const b of ctx.state.bots.values()) if (b.token === token) return b;
  return undefined;
}

function sendJson(reply: FastifyReply, value: JsonRecord, status = 200): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(stringifyWithBigInts(value));
}

export function registerApi(app: FastifyInstance, ctx: AmContext): void {
  app.post<{ Params: { endpoint: string } }>('/pa/:endpoint', async (req: FastifyRequest<{ Params: { endpoint: string } }>, reply) => {
    const body = asRecord(req.body);
    const rawSize = Buffer.byteLength(JSON.stringify(req.body ?? {}));
    try {
      const header = req.headers[ctx.options.authHeaderName.toLowerCase()];
      const token = (typeof header === 'string' ? header : undefined) ?? optString(body.auth_token);
      if (token === undefined || token === '') throw new ApiStatus('invalidAuthToken', 'missing_auth_token');
      const bot = botForToken(ctx, token);
      if (!bot) throw new ApiStatus('invalidAuthToken', 'invalidAuthToken');
      if (bot.blocked) throw new ApiStatus('publicAccountBlocked');
      const handler = HANDLERS[req.params.endpoint];
      if (!handler) throw new ApiStatus('badData', 'unknown endpoint');
      await applyFault(ctx, req.params.endpoint);
      return sendJson(reply, await handler(ctx, bot, body, rawSize));
    } catch (err) {
      if (err instanceof ApiStatus) return sendJson(reply, statusBody(err));
      if (err instanceof HttpFailure) return reply.code(err.httpStatus).type('text/plain').send('Internal Server Error');
      throw err;
    }
  });

  app.setErrorHandler((err: unknown, req, reply) => {
    const e = err as { statusCode?: number; message?: string };
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(e.statusCode ?? 500).send({ error: { message: e.message ?? 'error' } });
    // Unparseable JSON and similar: still HTTP 200 with a status, like the platform.
    if (e.statusCode !== undefined && e.statusCode < 500) return sendJson(reply, statusBody(new ApiStatus('badData', e.message ?? 'badData')));
    return reply.code(500).type('text/plain').send('Internal Server Error');
  });

  app.setNotFoundHandler((req, reply) => {
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(404).send({ error: { message: 'no such control route' } });
    return reply.code(404).type('text/plain').send('Not Found');
  });
}
