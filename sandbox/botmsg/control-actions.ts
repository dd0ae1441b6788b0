import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX, controlError } from '../shared/control.js';
import { randomDigits } from '../shared/ids.js';
import { colorFor, makePng } from '../shared/png.js';
import { summarize } from '../shared/outbound.js';
import { asRecord, optNumber, optString, type JsonRecord } from '../shared/values.js';
import { botUser, chatView, seconds, userView, type BmContext } from './context.js';
import { userOr404 } from './control-setup.js';
import { storeFile, mediaObject, type FileKind } from './files.js';
import { findInlineButtonByData, inlineButton } from './keyboards.js';
import { findMessage } from './methods-send.js';
import type { BmBot, BmUser } from './state.js';
import type { PushResult } from './updates.js';

// Control API: act as an end user. Calls return after the webhook call ended (when a webhook is set).

type UserReq = FastifyRequest<{ Params: { botId: string; userId: string } }>;

function answer(result: PushResult, extra: JsonRecord = {}): JsonRecord {
  const out: JsonRecord = { ...extra, update: result.update.body };
  out.webhook = result.record ? summarize(result.record) : null;
  if (result.skipped !== null) out.webhook_skipped = result.skipped;
  return out;
}

function newUserMessage(ctx: BmContext, bot: BmBot, user: BmUser, content: JsonRecord): JsonRecord {
  const message: JsonRecord = {
    message_id: user.nextMessageId++,
    from: userView(user),
    chat: chatView(user),
    date: seconds(ctx.state.clock.now()),
    ...content,
  };
  ctx.state.messages.push({
    botId: bot.id,
    chatId: user.id,
    messageId: message.message_id as number,
    fromBot: false,
    method: 'user',
    params: null,
    message,
    deleted: false,
  });
  return message;
}

function memberUpdate(ctx: BmContext, bot: BmBot, user: BmUser, from: string, to: string): JsonRecord {
  const newMember: JsonRecord = { user: botUser(bot), status: to };
  if (to === 'kicked') newMember.until_date = 0;
  return {
    chat: chatView(user),
    from: userView(user),
    date: seconds(ctx.state.clock.now()),
    old_chat_member: { user: botUser(bot), status: from },
    new_chat_member: newMember,
  };
}

const notStarted = (reply: FastifyReply): FastifyReply => controlError(reply, 409, 'the user has not started the bot (or blocked it); POST …/start first');

export function registerActionRoutes(app: FastifyInstance, ctx: BmContext): void {
  const p = `${CONTROL_PREFIX}/bots/:botId/users/:userId`;
  const route = (name: string, run: (req: UserReq, reply: FastifyReply, bot: BmBot, user: BmUser) => Promise<unknown>): void => {
    app.post<{ Params: { botId: string; userId: string } }>(`${p}/${name}`, async (req, reply) => {
      const found = userOr404(ctx, req, reply);
      if (!found) return reply;
      return run(req, reply, found.bot, found.user);
    });
  };

  // Pressing START (optionally from a deep link with a payload). Unblocks a bot blocked before.
  route('start', async (req, _reply, bot, user) => {
    const payload = optString(asRecord(req.body).payload);
    let unblock: PushResult | null = null;
    if (user.blocked) {
      user.blocked = false;
      unblock = await ctx.updates.push(bot, 'my_chat_member', memberUpdate(ctx, bot, user, 'kicked', 'member'));
    }
    user.started = true;
    const text = payload ? `/start ${payload}` : '/start';
    const message = newUserMessage(ctx, bot, user, { text, entities: [{ offset: 0, length: 6, type: 'bot_command' }] });
    const result = answer(await ctx.updates.push(bot, 'message', message));
    if (unblock) result.unblock = answer(unblock);
    return result;
  });

  route('messages', async (req, reply, bot, user) => {
    if (!user.started || user.blocked) return notStarted(reply);
    const body = asRecord(req.body);
    const text = optString(body.text);
    if (!text) return controlError(reply, 400, 'text is required');
    const content: JsonRecord = { text };
    const replyTo = optNumber(body.reply_to_message_id);
    if (replyTo !== undefined) {
      const target = findMessage(ctx, bot, user.id, replyTo);
      if (!target) return controlError(reply, 404, 'no such message in this chat');
      content.reply_to_message = target.message;
    }
    if (text.startsWith('/')) {
      const cmd = text.split(/\s/)[0] ?? text;
      content.entities = [{ offset: 0, length: cmd.length, type: 'bot_command' }];
    }
    return answer(await ctx.updates.push(bot, 'message', newUserMessage(ctx, bot, user, content)));
  });

  // A file from the user: photo, document, video, audio or voice; getFile + download work on it.
  route('media', async (req, reply, bot, user) => {
    if (!user.started || user.blocked) return notStarted(reply);
    const body = asRecord(req.body);
    const type = (optString(body.type) ?? 'photo') as FileKind;
    const defaults: Record<FileKind, { name: string; mime: string }> = {
      photo: { name: 'photo.png', mime: 'image/png' },
      document: { name: 'document.pdf', mime: 'application/pdf' },
      video: { name: 'video.mp4', mime: 'video/mp4' },
      audio: { name: 'audio.mp3', mime: 'audio/mpeg' },
      voice: { name: 'voice.oga', mime: 'audio/ogg' },
    };
    const def = defaults[type];
    if (def === undefined) return controlError(reply, 400, 'type must be photo, document, video, audio or voice');
    const fileName = optString(body.file_name) ?? def.name;
    const base64 = optString(body.content_base64);
    const data =
      base64 !== undefined ? Buffer.from(base64, 'base64') : type === 'photo' ? makePng(320, 240, colorFor(fileName)) : Buffer.from(`sandbox ${type}\n`);
    const file = storeFile(ctx, bot, type, data, optString(body.mime_type) ?? def.mime, fileName);
    const content: JsonRecord = mediaObject(ctx, file, { duration: optNumber(body.duration) ?? 3 });
    const caption = optString(body.caption);
    if (caption) content.caption = caption;
    return answer(await ctx.updates.push(bot, 'message', newUserMessage(ctx, bot, user, content)), { file_id: file.fileId });
  });

  route('location', async (req, reply, bot, user) => {
    if (!user.started || user.blocked) return notStarted(reply);
    const body = asRecord(req.body);
    const latitude = optNumber(body.latitude);
    const longitude = optNumber(body.longitude);
    if (latitude === undefined || longitude === undefined) return controlError(reply, 400, 'latitude and longitude are required');
    return answer(await ctx.updates.push(bot, 'message', newUserMessage(ctx, bot, user, { location: { latitude, longitude } })));
  });

  // The user shares their own contact (e.g. a request_contact keyboard button).
  route('contact', async (req, reply, bot, user) => {
    if (!user.started || user.blocked) return notStarted(reply);
    const body = asRecord(req.body);
    const phone = optString(body.phone_number) ?? user.phoneNumber ?? '+15555550100';
    user.phoneNumber = phone;
    const contact: JsonRecord = { phone_number: phone, first_name: optString(body.first_name) ?? user.firstName, user_id: user.id };
    if (user.lastName !== null) contact.last_name = user.lastName;
    return answer(await ctx.updates.push(bot, 'message', newUserMessage(ctx, bot, user, { contact })));
  });

  // Press an inline button: {message_id, data} or {message_id, row, column}.
  route('callback_query', async (req, reply, bot, user) => {
    if (user.blocked) return notStarted(reply);
    const body = asRecord(req.body);
    const messageId = optNumber(body.message_id);
    const target = messageId === undefined ? undefined : findMessage(ctx, bot, user.id, messageId);
    if (!target || !target.fromBot) return controlError(reply, 404, 'no message from the bot with this message_id');
    const markup = target.message.reply_markup;
    const wanted = optString(body.data);
    const button = wanted !== undefined ? findInlineButtonByData(markup, wanted) : inlineButton(markup, optNumber(body.row) ?? 0, optNumber(body.column) ?? 0);
    const data = optString(button?.callback_data);
    if (!button || data === undefined) return controlError(reply, 400, 'no callback_data button found in that message');
    const id = randomDigits(19);
    ctx.state.callbackQueries.set(id, {
      id,
      botId: bot.id,
      userId: user.id,
      messageId: target.messageId,
      data,
      createdAt: ctx.state.clock.now(),
      answer: null,
    });
    const query = { id, from: userView(user), message: target.message, chat_instance: `-${randomDigits(18)}`, data };
    return answer(await ctx.updates.push(bot, 'callback_query', query), { callback_query_id: id });
  });

  route('block', async (_req, reply, bot, user) => {
    if (user.blocked) return controlError(reply, 409, 'already blocked');
    user.blocked = true;
    return answer(await ctx.updates.push(bot, 'my_chat_member', memberUpdate(ctx, bot, user, 'member', 'kicked')));
  });

  route('unblock', async (_req, reply, bot, user) => {
    if (!user.blocked) return controlError(reply, 409, 'not blocked');
    user.blocked = false;
    return answer(await ctx.updates.push(bot, 'my_chat_member', memberUpdate(ctx, bot, user, 'kicked', 'member')));
  });
}
