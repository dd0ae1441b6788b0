import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { stringifyWithBigInts } from '../shared/big-json.js';
import { CONTROL_PREFIX, controlError } from '../shared/control.js';
import { randomAlnum, randomHex } from '../shared/ids.js';
import { colorFor, makePng } from '../shared/png.js';
import { summarize } from '../shared/outbound.js';
import { asArray, asRecord, isRecord, optBoolean, optNumber, optString, type JsonRecord } from '../shared/values.js';
import { recordSent } from './api.js';
import { originOf, type AmContext } from './context.js';
import type { AmBot, AmSentMessage, AmUser } from './state.js';
import { userKey } from './state.js';
import { CHAT_HOSTNAME, type CallbackOutcome } from './webhooks.js';

// Control API: bots, users, user actions (callbacks to the service), inspection.

type BotReq = FastifyRequest<{ Params: { botId: string } }>;
type UserReq = FastifyRequest<{ Params: { botId: string; userId: string } }>;

function sendJson(reply: FastifyReply, value: unknown, status = 200): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(stringifyWithBigInts(value));
}

function answer(outcome: CallbackOutcome, event: JsonRecord, extra: JsonRecord = {}): JsonRecord {
  if (outcome.sent) return { ...extra, event, webhook: summarize(outcome.record) };
  return { ...extra, event, webhook: null, webhook_skipped: outcome.reason };
}

function botView(ctx: AmContext, bot: AmBot): JsonRecord {
  return {
    id: bot.id,
    token: bot.token,
    name: bot.name,
    uri: bot.uri,
    webhook: bot.webhook,
    blocked: bot.blocked,
    subscribers: [...ctx.state.users.values()].filter((u) => u.botId === bot.id && u.subscribed).length,
  };
}

function userView(u: AmUser): JsonRecord {
  return {
    id: u.id,
    name: u.name,
    avatar: u.avatar,
    country: u.country,
    language: u.language,
    api_version: u.apiVersion,
    subscribed: u.subscribed,
    registered: u.registered,
    online: u.online,
  };
}

function sentView(m: AmSentMessage): JsonRecord {
  return {
    message_token: m.token,
    receiver: m.receiver,
    source: m.source,
    body: m.body,
    sent_at: m.sentAt,
    delivered_at: m.deliveredAt,
    seen_at: m.seenAt,
    failed: m.failed,
  };
}

function newUserId(): string {
  return `${randomAlnum(22)}==`;
}

export function registerControl(app: FastifyInstance, ctx: AmContext): void {
  const p = CONTROL_PREFIX;
  const { state } = ctx;
  const botOr404 = (req: BotReq, reply: FastifyReply): AmBot | undefined => {
    const bot = state.bots.get(req.params.botId);
    if (!bot) void controlError(reply, 404, `no bot ${req.params.botId}`);
    return bot;
  };
  const userOr404 = (req: UserReq, reply: FastifyReply): { bot: AmBot; user: AmUser } | undefined => {
    const bot = botOr404(req, reply);
    if (!bot) return undefined;
    const user = state.users.get(userKey(bot.id, req.params.userId));
    if (!user) {
      void controlError(reply, 404, `no user ${req.params.userId}`);
      return undefined;
    }
    return { bot, user };
  };
  const base = (event: string): JsonRecord => ({ event, timestamp: state.clock.now(), chat_hostname: CHAT_HOSTNAME, message_token: ctx.webhooks.nextToken() });

  app.post(`${p}/bots`, async (req, reply) => {
    const body = asRecord(req.body);
    const id = optString(body.id) ?? `pa:${randomHex(8)}`;
    if (state.bots.has(id)) return controlError(reply, 400, 'id in use');
    const bot: AmBot = {
      id,
      token: optString(body.token) ?? `${randomHex(8)}-${randomHex(8)}-${randomHex(8)}`,
      name: optString(body.name) ?? 'Sandbox Shop',
      uri: optString(body.uri) ?? `sandboxshop${randomAlnum(4).toLowerCase()}`,
      icon: '',
      background: '',
      category: optString(body.category) ?? 'Companies, Brands & Products',
      subcategory: optString(body.subcategory) ?? 'Retail',
      country: optString(body.country) ?? 'CZ',
      location: { lat: 50.08, lon: 14.42 },
      webhook: null,
      blocked: false,
    };
    state.bots.set(id, bot);
    return reply.code(201).send({ bot: botView(ctx, bot), token: bot.token });
  });

  app.get(`${p}/bots`, async () => ({ bots: [...state.bots.values()].map((b) => botView(ctx, b)) }));
  app.get<{ Params: { botId: string } }>(`${p}/bots/:botId`, async (req, reply) => {
    const bot = botOr404(req, reply);
    return bot ? { bot: botView(ctx, bot) } : reply;
  });
  for (const [route, blocked] of [
    ['block', true],
    ['unblock', false],
  ] as const) {
    app.post<{ Params: { botId: string } }>(`${p}/bots/:botId/${route}`, async (req, reply) => {
      const bot = botOr404(req, reply);
      if (!bot) return reply;
      bot.blocked = blocked;
      return { bot: botView(ctx, bot) };
    });
  }

  app.post<{ Params: { botId: string } }>(`${p}/bots/:botId/users`, async (req, reply) => {
    const bot = botOr404(req, reply);
    if (!bot) return reply;
    const body = asRecord(req.body);
    const id = optString(body.id) ?? newUserId();
    const avatar = state.media.put(makePng(48, 48, colorFor(id)), 'image/png', 'avatar.png');
    const user: AmUser = {
      id,
      botId: bot.id,
      name: optString(body.name) ?? 'John McClane',
      avatar: originOf(ctx, req) + state.media.pathOf(avatar),
      country: optString(body.country) ?? 'CZ',
      language: optString(body.language) ?? 'en',
      apiVersion: optNumber(body.api_version) ?? 10,
      primaryDeviceOs: optString(body.primary_device_os) ?? 'Android 14',
      deviceType: optString(body.device_type) ?? 'Pixel 8',
      subscribed: optBoolean(body.subscribed) ?? false,
      registered: optBoolean(body.registered) ?? true,
      online: optBoolean(body.online) ?? true,
      lastInboundAt: null,
      detailCalls: [],
    };
    state.users.set(userKey(bot.id, id), user);
    return reply.code(201).send({ user: userView(user) });
  });

  app.get<{ Params: { botId: string } }>(`${p}/bots/:botId/users`, async (req, reply) => {
    const bot = botOr404(req, reply);
    return bot ? { users: [...state.users.values()].filter((u) => u.botId === bot.id).map(userView) } : reply;
  });

  const route = (name: string, run: (req: UserReq, reply: FastifyReply, bot: AmBot, user: AmUser) => Promise<unknown>): void => {
    app.post<{ Params: { botId: string; userId: string } }>(`${p}/bots/:botId/users/:userId/${name}`, async (req, reply) => {
      const found = userOr404(req, reply);
      if (!found) return reply;
      const result = await run(req, reply, found.bot, found.user);
      return reply.sent ? reply : sendJson(reply, result);
    });
  };

  /** A message from the user; the first one subscribes the user without a `subscribed` event. */
  const userMessage = async (bot: AmBot, user: AmUser, message: JsonRecord): Promise<JsonRecord> => {
    user.subscribed = true;
    user.lastInboundAt = state.clock.now();
    const last = [...state.sent].reverse().find((m) => m.botId === bot.id && m.receiver === user.id);
    const tracking = last?.body.tracking_data;
    if (typeof tracking === 'string') message.tracking_data = tracking;
    const event = { ...base('message'), sender: ctx.webhooks.userObject(bot, user), message, silent: false };
    return answer(await ctx.webhooks.send(bot, event), event);
  };

  // The user opens the chat (deep link context optional). A JSON answer is the welcome message.
  route('conversation_started', async (req, _reply, bot, user) => {
    const body = asRecord(req.body);
    const event: JsonRecord = {
      ...base('conversation_started'),
      type: optString(body.type) ?? 'open',
      user: ctx.webhooks.userObject(bot, user),
      subscribed: user.subscribed,
    };
    const context = optString(body.context);
    if (context !== undefined) event.context = context;
    const outcome = await ctx.webhooks.send(bot, event);
    const result = answer(outcome, event);
    if (outcome.sent && outcome.record.ok && outcome.record.body.trim().startsWith('{')) {
      try {
        const welcome = JSON.parse(outcome.record.body) as unknown;
        if (isRecord(welcome) && typeof welcome.type === 'string') {
          result.welcome_message_token = recordSent(ctx, bot, user.id, welcome, 'welcome').token;
        }
      } catch {
        // not a welcome message
      }
    }
    return result;
  });

  route('subscribe', async (_req, _reply, bot, user) => {
    user.subscribed = true;
    const event = { ...base('subscribed'), user: ctx.webhooks.userObject(bot, user) };
    return answer(await ctx.webhooks.send(bot, event), event);
  });

  route('unsubscribe', async (_req, _reply, bot, user) => {
    user.subscribed = false;
    const event = { ...base('unsubscribed'), user_id: user.id };
    return answer(await ctx.webhooks.send(bot, event), event);
  });

  route('messages', async (req, reply, bot, user) => {
    const text = optString(asRecord(req.body).text);
    if (!text) return controlError(reply, 400, 'text is required');
    return userMessage(bot, user, { type: 'text', text });
  });

  // Tap a keyboard / rich-media button of a message the bot sent: {message_token, index}.
  route('button', async (req, reply, bot, user) => {
    const body = asRecord(req.body);
    const token = optString(body.message_token);
    const sent = state.sent.find((m) => m.botId === bot.id && m.receiver === user.id && m.token.toString() === token);
    if (!sent) return controlError(reply, 404, 'no such message sent to this user');
    const holder = isRecord(sent.body.keyboard) ? sent.body.keyboard : isRecord(sent.body.rich_media) ? sent.body.rich_media : {};
    const button = asRecord(asArray(holder.Buttons)?.[optNumber(body.index) ?? 0]);
    const action = optString(button.ActionType) ?? 'reply';
    // A reply button, and an open-url one besides opening its URL, send their ActionBody as the user's text.
    if (action === 'reply' || action === 'open-url') return userMessage(bot, user, { type: 'text', text: optString(button.ActionBody) ?? '' });
    if (action === 'location-picker') return userMessage(bot, user, { type: 'location', location: { lat: 50.087, lon: 14.421 } });
    if (action === 'share-phone')
      return userMessage(bot, user, { type: 'contact', contact: { name: user.name, phone_number: optString(body.phone_number) ?? '420777000111' } });
    return controlError(reply, 400, `a ${action} button sends nothing to the bot`);
  });

  route('media', async (req, reply, bot, user) => {
    const body = asRecord(req.body);
    const type = optString(body.type) ?? 'picture';
    if (!['picture', 'video', 'file'].includes(type)) return controlError(reply, 400, 'type must be picture, video or file');
    const fileName = optString(body.file_name) ?? (type === 'picture' ? 'photo.png' : type === 'video' ? 'clip.mp4' : 'document.pdf');
    const b64 = optString(body.content_base64);
    const data = b64 !== undefined ? Buffer.from(b64, 'base64') : type === 'picture' ? makePng(320, 240, colorFor(fileName)) : Buffer.from(`sandbox ${type}\n`);
    const contentType = optString(body.content_type) ?? (type === 'picture' ? 'image/png' : type === 'video' ? 'video/mp4' : 'application/pdf');
    const media = state.media.put(data, contentType, fileName);
    const message: JsonRecord = { type, media: originOf(ctx, req) + state.media.pathOf(media), size: data.length };
    if (type === 'file') message.file_name = fileName;
    if (type === 'video') message.duration = 3;
    const caption = optString(body.text);
    if (caption) message.text = caption;
    return userMessage(bot, user, message);
  });

  route('location', async (req, reply, bot, user) => {
    const body = asRecord(req.body);
    const lat = optNumber(body.lat);
    const lon = optNumber(body.lon);
    if (lat === undefined || lon === undefined) return controlError(reply, 400, 'lat and lon are required');
    return userMessage(bot, user, { type: 'location', location: { lat, lon } });
  });

  route('contact', async (req, _reply, bot, user) => {
    const body = asRecord(req.body);
    return userMessage(bot, user, {
      type: 'contact',
      contact: { name: optString(body.name) ?? user.name, phone_number: optString(body.phone_number) ?? '420777000111' },
    });
  });

  route('sticker', async (req, _reply, bot, user) =>
    userMessage(bot, user, { type: 'sticker', sticker_id: optNumber(asRecord(req.body).sticker_id) ?? 40133 }),
  );

  // Receipts: one callback per message (default: every message not yet delivered / seen).
  for (const kind of ['delivered', 'seen', 'failed'] as const) {
    route(kind, async (req, reply, bot, user) => {
      const body = asRecord(req.body);
      const token = optString(body.message_token);
      const now = state.clock.now();
      const targets = state.sent.filter(
        (m) =>
          m.botId === bot.id &&
          m.receiver === user.id &&
          (token !== undefined ? m.token.toString() === token : kind === 'delivered' ? m.deliveredAt === null : kind === 'seen' ? m.seenAt === null : false),
      );
      if (targets.length === 0) return controlError(reply, 404, 'no matching message (give message_token)');
      const results: JsonRecord[] = [];
      for (const m of targets) {
        if (kind === 'delivered') m.deliveredAt = now;
        if (kind === 'seen') m.seenAt = now;
        const event: JsonRecord = { event: kind, timestamp: now, chat_hostname: CHAT_HOSTNAME, message_token: m.token, user_id: user.id };
        if (kind === 'failed') {
          m.failed = optString(body.desc) ?? 'failed to deliver';
          event.desc = m.failed;
        }
        results.push(answer(await ctx.webhooks.send(bot, event), event));
      }
      return { callbacks: results };
    });
  }

  app.get<{ Params: { botId: string }; Querystring: { receiver?: string } }>(`${p}/bots/:botId/messages`, async (req, reply) => {
    const bot = botOr404(req, reply);
    if (!bot) return reply;
    const receiver = req.query.receiver;
    return sendJson(reply, { messages: state.sent.filter((m) => m.botId === bot.id && (receiver === undefined || m.receiver === receiver)).map(sentView) });
  });

  app.get(`${p}/state`, async (_req, reply) =>
    sendJson(reply, {
      bots: [...state.bots.values()].map((b) => botView(ctx, b)),
      users: [...state.users.values()].map(userView),
      sent: state.sent.map(sentView),
      faults: state.faults.list(),
    }),
  );

  app.post(`${p}/reset`, async () => {
    state.bots.clear();
    state.users.clear();
    state.sent.length = 0;
    state.faults.clear();
    state.requests.clear();
    state.webhooks.clear();
    state.media.clear();
    return { reset: true };
  });
}
