import { asRecord, isRecord, maybeJson, optBoolean, optNumber, optString, type JsonRecord } from '../shared/values.js';
import { botUser, chatView, seconds, type BmContext, type MethodCall, type MethodHandler } from './context.js';
import { badRequest, forbidden } from './errors.js';
import { mediaObject, resolveInputFile, type FileKind } from './files.js';
import { parseReplyMarkup } from './keyboards.js';
import type { BmBot, BmMessage, BmUser } from './state.js';
import { userKey } from './state.js';
import { formatText } from './text-format.js';

// Methods that put something into a chat: sendMessage, send<Media>, sendLocation, sendVenue,
// sendContact, sendChatAction, editMessageText, editMessageReplyMarkup, deleteMessage.

const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;
const CHAT_ACTIONS = [
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
];

/** The private chat for chat_id, with the platform's errors for unknown, blocked or never-started users. */
export function resolveChat(ctx: BmContext, bot: BmBot, raw: unknown): BmUser {
  const value = optString(raw);
  if (value === undefined || value === '') throw badRequest('chat_id is empty');
  if (!/^-?\d+$/.test(value)) throw badRequest('chat not found');
  const user = ctx.state.users.get(userKey(bot.id, Number(value)));
  if (!user) throw badRequest('chat not found');
  if (user.deactivated) throw forbidden('user is deactivated');
  if (user.blocked) throw forbidden('bot was blocked by the user');
  if (!user.started) throw forbidden("bot can't initiate conversation with a user");
  return user;
}

export function findMessage(ctx: BmContext, bot: BmBot, chatId: number, messageId: number): BmMessage | undefined {
  return ctx.state.messages.find((m) => m.botId === bot.id && m.chatId === chatId && m.messageId === messageId && !m.deleted);
}

function replyTarget(ctx: BmContext, bot: BmBot, user: BmUser, params: Record<string, unknown>): JsonRecord | undefined {
  const rp = asRecord(maybeJson(params.reply_parameters));
  const id = optNumber(rp.message_id) ?? optNumber(params.reply_to_message_id);
  if (id === undefined) return undefined;
  const target = findMessage(ctx, bot, user.id, id);
  if (target) return target.message;
  const allow = optBoolean(rp.allow_sending_without_reply) ?? optBoolean(params.allow_sending_without_reply) ?? false;
  if (!allow) throw badRequest('message to be replied not found');
  return undefined;
}

/** Stores a message the bot sent and returns the Message object. */
function record(ctx: BmContext, call: MethodCall, method: string, user: BmUser, content: JsonRecord, markup: JsonRecord | undefined): JsonRecord {
  const { bot, params } = call;
  const replyTo = replyTarget(ctx, bot, user, params);
  const message: JsonRecord = {
    message_id: user.nextMessageId++,
    from: botUser(bot),
    chat: chatView(user),
    date: seconds(ctx.state.clock.now()),
  };
  if (replyTo) {
    const { reply_to_message: _nested, ...flat } = replyTo;
    message.reply_to_message = flat;
  }
  Object.assign(message, content);
  // Only inline keyboards are part of the returned Message.
  if (markup?.inline_keyboard !== undefined) message.reply_markup = { inline_keyboard: markup.inline_keyboard };
  const stored: JsonRecord = {};
  for (const [k, v] of Object.entries(params)) stored[k] = maybeJson(v);
  ctx.state.messages.push({
    botId: bot.id,
    chatId: user.id,
    messageId: message.message_id as number,
    fromBot: true,
    method,
    params: stored,
    message,
    deleted: false,
  });
  return message;
}

function textWithEntities(raw: string, params: Record<string, unknown>, modeKey: string, entitiesKey: string, textKey: string): JsonRecord {
  const explicit = maybeJson(params[entitiesKey]);
  const formatted = Array.isArray(explicit) ? { text: raw, entities: explicit as unknown[] } : formatText(raw, optString(params[modeKey]));
  const out: JsonRecord = { [textKey]: formatted.text };
  if (formatted.entities.length > 0) out[entitiesKey] = formatted.entities;
  return out;
}

const sendMessage: MethodHandler = async (ctx, call) => {
  const user = resolveChat(ctx, call.bot, call.params.chat_id);
  const raw = optString(call.params.text);
  if (raw === undefined || raw.trim() === '') throw badRequest('message text is empty');
  const content = textWithEntities(raw, call.params, 'parse_mode', 'entities', 'text');
  const text = String(content.text);
  if (text.trim() === '') throw badRequest('message text is empty');
  if (text.length > TEXT_LIMIT) throw badRequest('message is too long');
  const lpo = maybeJson(call.params.link_preview_options);
  if (isRecord(lpo)) content.link_preview_options = lpo;
  const markup = parseReplyMarkup(call.params.reply_markup);
  return record(ctx, call, 'sendMessage', user, content, markup);
};

function mediaSender(kind: FileKind, method: string): MethodHandler {
  return async (ctx, call) => {
    const user = resolveChat(ctx, call.bot, call.params.chat_id);
    const markup = parseReplyMarkup(call.params.reply_markup);
    const caption = optString(call.params.caption);
    const captionContent = caption !== undefined && caption !== '' ? textWithEntities(caption, call.params, 'parse_mode', 'caption_entities', 'caption') : {};
    if (typeof captionContent.caption === 'string' && captionContent.caption.length > CAPTION_LIMIT) throw badRequest('message caption is too long');
    const file = await resolveInputFile(ctx, call.bot, kind, kind, call.params[kind], call.files);
    return record(ctx, call, method, user, { ...mediaObject(ctx, file, call.params), ...captionContent }, markup);
  };
}

function coordinates(params: Record<string, unknown>): { latitude: number; longitude: number } {
  const latitude = optNumber(params.latitude);
  const longitude = optNumber(params.longitude);
  if (latitude === undefined || longitude === undefined) throw badRequest('latitude and longitude must be specified');
  if (latitude < -90 || latitude > 90 || longitude < -180 || longitude > 180) throw badRequest('wrong latitude/longitude specified');
  return { latitude, longitude };
}

const sendLocation: MethodHandler = async (ctx, call) => {
  const user = resolveChat(ctx, call.bot, call.params.chat_id);
  const location: JsonRecord = coordinates(call.params);
  const accuracy = optNumber(call.params.horizontal_accuracy);
  if (accuracy !== undefined) {
    if (accuracy < 0 || accuracy > 1500) throw badRequest('wrong horizontal accuracy specified');
    location.horizontal_accuracy = accuracy;
  }
  const livePeriod = optNumber(call.params.live_period);
  if (livePeriod !== undefined) {
    if ((livePeriod < 60 || livePeriod > 86400) && livePeriod !== 0x7fffffff) throw badRequest('wrong live period specified');
    location.live_period = livePeriod;
  }
  const heading = optNumber(call.params.heading);
  if (heading !== undefined) {
    if (heading < 1 || heading > 360) throw badRequest('wrong heading specified');
    location.heading = heading;
  }
  const radius = optNumber(call.params.proximity_alert_radius);
  if (radius !== undefined) {
    if (radius < 1 || radius > 100000) throw badRequest('wrong proximity alert radius specified');
    location.proximity_alert_radius = radius;
  }
  return record(ctx, call, 'sendLocation', user, { location }, parseReplyMarkup(call.params.reply_markup));
};

const sendVenue: MethodHandler = async (ctx, call) => {
  const user = resolveChat(ctx, call.bot, call.params.chat_id);
  const location = coordinates(call.params);
  const title = optString(call.params.title);
  const address = optString(call.params.address);
  if (!title) throw badRequest('venue title is empty');
  if (!address) throw badRequest('venue address is empty');
  return record(ctx, call, 'sendVenue', user, { location, venue: { location, title, address } }, parseReplyMarkup(call.params.reply_markup));
};

const sendContact: MethodHandler = async (ctx, call) => {
  const user = resolveChat(ctx, call.bot, call.params.chat_id);
  const phone = optString(call.params.phone_number);
  const firstName = optString(call.params.first_name);
  if (!phone) throw badRequest('phone number is empty');
  if (!firstName) throw badRequest('contact first name is empty');
  const contact: JsonRecord = { phone_number: phone, first_name: firstName };
  const lastName = optString(call.params.last_name);
  if (lastName) contact.last_name = lastName;
  return record(ctx, call, 'sendContact', user, { contact }, parseReplyMarkup(call.params.reply_markup));
};

const sendChatAction: MethodHandler = async (ctx, call) => {
  const user = resolveChat(ctx, call.bot, call.params.chat_id);
  const action = optString(call.params.action) ?? '';
  if (!CHAT_ACTIONS.includes(action)) throw badRequest('wrong parameter action in request');
  ctx.state.chatActions.push({ botId: call.bot.id, chatId: user.id, action, at: ctx.state.clock.now() });
  return true;
};

function editable(ctx: BmContext, call: MethodCall): { user: BmUser; target: BmMessage } {
  const user = resolveChat(ctx, call.bot, call.params.chat_id);
  const id = optNumber(call.params.message_id);
  if (id === undefined) throw badRequest('message identifier is not specified');
  const target = findMessage(ctx, call.bot, user.id, id);
  if (!target) throw badRequest('message to edit not found');
  if (!target.fromBot) throw badRequest("message can't be edited");
  return { user, target };
}

const editMessageText: MethodHandler = async (ctx, call) => {
  const { target } = editable(ctx, call);
  const raw = optString(call.params.text);
  if (raw === undefined || raw.trim() === '') throw badRequest('message text is empty');
  if (typeof target.message.text !== 'string') throw badRequest('there is no text in the message to edit');
  const content = textWithEntities(raw, call.params, 'parse_mode', 'entities', 'text');
  if (String(content.text).length > TEXT_LIMIT) throw badRequest('MESSAGE_TOO_LONG');
  const markup = parseReplyMarkup(call.params.reply_markup);
  const newMarkup = markup?.inline_keyboard !== undefined ? { inline_keyboard: markup.inline_keyboard } : undefined;
  if (content.text === target.message.text && JSON.stringify(newMarkup) === JSON.stringify(target.message.reply_markup)) {
    throw badRequest(
      'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
    );
  }
  target.message.text = content.text;
  if (content.entities !== undefined) target.message.entities = content.entities;
  else delete target.message.entities;
  if (newMarkup) target.message.reply_markup = newMarkup;
  else delete target.message.reply_markup;
  target.message.edit_date = seconds(ctx.state.clock.now());
  return target.message;
};

const editMessageReplyMarkup: MethodHandler = async (ctx, call) => {
  const { target } = editable(ctx, call);
  const markup = parseReplyMarkup(call.params.reply_markup);
  const newMarkup = markup?.inline_keyboard !== undefined ? { inline_keyboard: markup.inline_keyboard } : undefined;
  if (JSON.stringify(newMarkup) === JSON.stringify(target.message.reply_markup)) {
    throw badRequest(
      'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
    );
  }
  if (newMarkup) target.message.reply_markup = newMarkup;
  else delete target.message.reply_markup;
  target.message.edit_date = seconds(ctx.state.clock.now());
  return target.message;
};

const deleteMessage: MethodHandler = async (ctx, call) => {
  const user = resolveChat(ctx, call.bot, call.params.chat_id);
  const id = optNumber(call.params.message_id);
  if (id === undefined) throw badRequest('message identifier is not specified');
  const target = findMessage(ctx, call.bot, user.id, id);
  if (!target) throw badRequest('message to delete not found');
  target.deleted = true;
  return true;
};

export const SEND_METHODS: Record<string, MethodHandler> = {
  sendmessage: sendMessage,
  sendphoto: mediaSender('photo', 'sendPhoto'),
  senddocument: mediaSender('document', 'sendDocument'),
  sendvideo: mediaSender('video', 'sendVideo'),
  sendaudio: mediaSender('audio', 'sendAudio'),
  sendvoice: mediaSender('voice', 'sendVoice'),
  sendlocation: sendLocation,
  sendvenue: sendVenue,
  sendcontact: sendContact,
  sendchataction: sendChatAction,
  editmessagetext: editMessageText,
  editmessagereplymarkup: editMessageReplyMarkup,
  deletemessage: deleteMessage,
};
