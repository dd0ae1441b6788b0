import { asArray, maybeJson, optBoolean, optNumber, optString, type JsonRecord } from '../shared/values.js';
import { botUser, chatView, Described, type MethodHandler } from './context.js';
import { BotError, badRequest } from './errors.js';
import { DOWNLOAD_LIMIT } from './files.js';
import { userKey } from './state.js';

// Bot-level methods: getMe, webhooks, getUpdates, getFile, answerCallbackQuery, getChat.

const UPDATE_TYPES = [
  'message',
  'edited_message',
  'channel_post',
  'edited_channel_post',
  'business_connection',
  'business_message',
  'edited_business_message',
  'deleted_business_messages',
  'message_reaction',
  'message_reaction_count',
  'inline_query',
  'chosen_inline_result',
  'callback_query',
  'shipping_query',
  'pre_checkout_query',
  'purchased_paid_media',
  'poll',
  'poll_answer',
  'my_chat_member',
  'chat_member',
  'chat_join_request',
  'chat_boost',
  'removed_chat_boost',
];

const getMe: MethodHandler = async (_ctx, { bot }) => ({
  ...botUser(bot),
  can_join_groups: bot.canJoinGroups,
  can_read_all_group_messages: bot.canReadAllGroupMessages,
  supports_inline_queries: bot.supportsInlineQueries,
  can_connect_to_business: false,
  has_main_web_app: false,
});

function allowedUpdatesParam(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  const list = asArray(maybeJson(raw));
  if (!list) throw badRequest("can't parse allowed updates");
  return list.map(String).filter((t) => UPDATE_TYPES.includes(t));
}

const setWebhook: MethodHandler = async (ctx, { bot, params }) => {
  const url = optString(params.url) ?? '';
  const drop = optBoolean(params.drop_pending_updates) ?? false;
  if (url === '') {
    const had = bot.webhook !== null;
    bot.webhook = null;
    if (drop) for (const u of ctx.updates.pending(bot)) u.status = 'dropped';
    return new Described(true, had ? 'Webhook was deleted' : 'Webhook is already deleted');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest('bad webhook: Failed to resolve host: Name or service not known');
  }
  if (ctx.options.requireHttpsWebhook && parsed.protocol !== 'https:') throw badRequest('bad webhook: An HTTPS URL must be provided for webhook');
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw badRequest('bad webhook: An HTTPS URL must be provided for webhook');
  const ports = ctx.options.allowedWebhookPorts;
  const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  if (ports !== null && !ports.includes(port)) throw badRequest('bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443');
  const secret = optString(params.secret_token);
  if (secret !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(secret)) throw badRequest('secret token contains unallowed characters');
  const maxConnections = optNumber(params.max_connections) ?? 40;
  if (!Number.isInteger(maxConnections) || maxConnections < 1 || maxConnections > 100) throw badRequest('bad max_connections');
  const allowed = allowedUpdatesParam(params.allowed_updates);
  if (allowed !== undefined) bot.allowedUpdates = allowed;
  const same = bot.webhook?.url === url && bot.webhook.secretToken === (secret ?? null);
  bot.webhook = {
    url,
    secretToken: secret ?? null,
    maxConnections,
    allowedUpdates: bot.allowedUpdates,
    ipAddress: optString(params.ip_address) ?? '127.0.0.1',
    lastErrorDate: null,
    lastErrorMessage: null,
  };
  if (drop) for (const u of ctx.updates.pending(bot)) u.status = 'dropped';
  // Updates that waited while no webhook was set are pushed now.
  if (ctx.updates.pending(bot).length > 0) ctx.state.webhooks.dispatch(() => ctx.updates.retryPending(bot));
  return new Described(true, same ? 'Webhook is already set' : 'Webhook was set');
};

const deleteWebhook: MethodHandler = async (ctx, { bot, params }) => {
  const had = bot.webhook !== null;
  bot.webhook = null;
  if (optBoolean(params.drop_pending_updates) === true) for (const u of ctx.updates.pending(bot)) u.status = 'dropped';
  return new Described(true, had ? 'Webhook was deleted' : 'Webhook is already deleted');
};

const getWebhookInfo: MethodHandler = async (ctx, { bot }) => {
  const hook = bot.webhook;
  const info: JsonRecord = {
    url: hook?.url ?? '',
    has_custom_certificate: false,
    pending_update_count: ctx.updates.pending(bot).length,
  };
  if (!hook) return info;
  if (hook.ipAddress !== null) info.ip_address = hook.ipAddress;
  if (hook.lastErrorDate !== null) info.last_error_date = hook.lastErrorDate;
  if (hook.lastErrorMessage !== null) info.last_error_message = hook.lastErrorMessage;
  info.max_connections = hook.maxConnections;
  if (bot.allowedUpdates !== null) info.allowed_updates = bot.allowedUpdates;
  return info;
};

const getUpdates: MethodHandler = async (ctx, { bot, params }) => {
  if (bot.webhook) throw new BotError(409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
  const allowed = allowedUpdatesParam(params.allowed_updates);
  if (allowed !== undefined) bot.allowedUpdates = allowed;
  const offset = optNumber(params.offset);
  if (offset !== undefined) {
    for (const u of bot.updates) {
      if (u.status !== 'pending') continue;
      if (offset >= 0 ? u.updateId < offset : false) u.status = 'confirmed';
    }
  }
  const limit = Math.min(100, Math.max(1, optNumber(params.limit) ?? 100));
  const timeoutS = Math.min(50, Math.max(0, optNumber(params.timeout) ?? 0));
  let pending = ctx.updates.pending(bot);
  if (pending.length === 0 && timeoutS > 0) {
    await ctx.updates.waitForUpdate(bot.id, timeoutS * 1000, (ms) => ctx.sleeper.sleep(ms));
    pending = ctx.updates.pending(bot);
  }
  const slice = offset !== undefined && offset < 0 ? pending.slice(offset) : pending;
  return slice.slice(0, limit).map((u) => u.body);
};

const getFile: MethodHandler = async (ctx, { bot, params }) => {
  const id = optString(params.file_id);
  if (!id) throw badRequest('file_id is empty');
  const file = ctx.state.files.get(id);
  if (!file || file.botId !== bot.id) throw badRequest('invalid file_id');
  if (file.fileSize > DOWNLOAD_LIMIT) throw badRequest('file is too big');
  return { file_id: file.fileId, file_unique_id: file.fileUniqueId, file_size: file.fileSize, file_path: file.filePath };
};

const answerCallbackQuery: MethodHandler = async (ctx, { bot, params }) => {
  const id = optString(params.callback_query_id);
  if (!id) throw badRequest('query_id is empty');
  const query = ctx.state.callbackQueries.get(id);
  const now = ctx.state.clock.now();
  if (!query || query.botId !== bot.id || query.answer !== null || now - query.createdAt > ctx.options.callbackQueryTtlMs) {
    throw badRequest('query is too old and response timeout expired or query ID is invalid');
  }
  const text = optString(params.text) ?? null;
  if (text !== null && text.length > 200) throw badRequest('MESSAGE_TOO_LONG');
  query.answer = {
    text,
    showAlert: optBoolean(params.show_alert) ?? false,
    url: optString(params.url) ?? null,
    cacheTime: optNumber(params.cache_time) ?? 0,
    at: now,
  };
  return true;
};

const getChat: MethodHandler = async (ctx, { bot, params }) => {
  const value = optString(params.chat_id);
  if (!value) throw badRequest('chat_id is empty');
  const user = /^-?\d+$/.test(value) ? ctx.state.users.get(userKey(bot.id, Number(value))) : undefined;
  if (!user) throw badRequest('chat not found');
  return { ...chatView(user), accent_color_id: 0, max_reaction_count: 11 };
};

export const BOT_METHODS: Record<string, MethodHandler> = {
  getme: getMe,
  setwebhook: setWebhook,
  deletewebhook: deleteWebhook,
  getwebhookinfo: getWebhookInfo,
  getupdates: getUpdates,
  getfile: getFile,
  answercallbackquery: answerCallbackQuery,
  getchat: getChat,
};
