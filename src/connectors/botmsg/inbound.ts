import { timingSafeEqual } from 'node:crypto';
import type { InboundCall, InboundContent, InboundEvent, InboundParse, InboundUser } from '../connector.js';
import { buttonRefOf } from './render.js';

/**
 * Webhook updates, as pure functions. The platform repeats the webhook's
 * secret token in a header (compared in constant time); there is no body signature. One update
 * per call: a private-chat `message`, a `callback_query` (an inline button pressed), or a
 * private-chat `my_chat_member` whose new status is `kicked` (the user blocked the bot: an
 * opt-out). Other update types (edits, unblocking, other membership changes, groups) are answered
 * and not reported.
 */
type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function idOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return value;
  return undefined;
}

export function secretMatches(call: InboundCall, headerName: string, secret: string | undefined): boolean {
  const given = call.headers[headerName.toLowerCase()];
  if (!secret || given === undefined) return false;
  const a = Buffer.from(secret, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

function userOf(from: Json, chatId: string): InboundUser {
  const first = typeof from.first_name === 'string' ? from.first_name : '';
  const last = typeof from.last_name === 'string' ? from.last_name : '';
  const profile: Json = {};
  if (first !== '') profile.first_name = first;
  if (last !== '') profile.last_name = last;
  if (typeof from.username === 'string') profile.username = from.username;
  if (typeof from.language_code === 'string') profile.language_code = from.language_code;
  const name = `${first} ${last}`.trim();
  return { externalId: chatId, ...(name !== '' ? { name } : {}), profile };
}

/** A message's parts: media (the largest photo size), a caption, text, location, a shared contact. */
function contents(message: Json): InboundContent[] {
  const out: InboundContent[] = [];
  const caption = typeof message.caption === 'string' && message.caption !== '' ? message.caption : undefined;
  if (Array.isArray(message.photo) && message.photo.length > 0) {
    const largest = message.photo.filter(isObject).at(-1);
    if (largest && typeof largest.file_id === 'string') out.push({ type: 'image', media: { ref: largest.file_id } });
  }
  const files: Array<[string, 'file' | 'video' | 'audio']> = [
    ['document', 'file'],
    ['video', 'video'],
    ['audio', 'audio'],
    ['voice', 'audio'],
  ];
  for (const [key, type] of files) {
    const f = message[key];
    if (!isObject(f) || typeof f.file_id !== 'string') continue;
    out.push({
      type,
      media: {
        ref: f.file_id,
        ...(typeof f.file_name === 'string' ? { name: f.file_name } : {}),
        ...(typeof f.mime_type === 'string' ? { mimeType: f.mime_type } : {}),
      },
    });
  }
  if (caption !== undefined) out.push({ type: 'text', text: caption });
  if (typeof message.text === 'string' && message.text !== '') out.push({ type: 'text', text: message.text, matchQuickReplies: true });
  if (isObject(message.location)) {
    const latitude = Number(message.location.latitude);
    const longitude = Number(message.location.longitude);
    if (Number.isFinite(latitude) && Number.isFinite(longitude)) out.push({ type: 'location', latitude, longitude });
  }
  // A shared contact (the phone_number quick reply): reported as text with the number.
  if (isObject(message.contact) && typeof message.contact.phone_number === 'string') out.push({ type: 'text', text: message.contact.phone_number });
  return out;
}

/** Message ids are numbered per chat: the chat id makes them unique within the channel. */
export function messageKey(chatId: string, messageId: unknown): string | undefined {
  const id = idOf(messageId);
  return id === undefined ? undefined : `${chatId}:${id}`;
}

export function parseUpdate(call: InboundCall, headerName: string, secret: string | undefined): InboundParse {
  if (!secretMatches(call, headerName, secret)) return { ok: false, status: 403, message: 'The secret token header is missing or wrong.' };
  let update: unknown;
  try {
    update = JSON.parse(call.rawBody.toString('utf8')) as unknown;
  } catch {
    return { ok: false, status: 400, message: 'The request body is not valid JSON.' };
  }
  if (!isObject(update) || idOf(update.update_id) === undefined) return { ok: false, status: 400, message: 'The request body is not an update.' };

  const events: InboundEvent[] = [];
  if (isObject(update.message)) {
    const m = update.message;
    const chat = isObject(m.chat) ? m.chat : {};
    const chatId = idOf(chat.id);
    const key = chatId === undefined ? undefined : messageKey(chatId, m.message_id);
    if (chat.type === 'private' && chatId !== undefined && key !== undefined) {
      const user = userOf(isObject(m.from) ? m.from : {}, chatId);
      const at = typeof m.date === 'number' ? m.date * 1000 : null;
      contents(m).forEach((content, i) => events.push({ kind: 'message', user, at, externalId: i === 0 ? key : `${key}#${i}`, content }));
    }
    return { ok: true, events };
  }
  if (isObject(update.callback_query)) {
    const q = update.callback_query;
    const from = isObject(q.from) ? q.from : {};
    const message = isObject(q.message) ? q.message : {};
    const chat = isObject(message.chat) ? message.chat : {};
    const chatId = idOf(chat.id) ?? idOf(from.id);
    const data = typeof q.data === 'string' ? q.data : undefined;
    if (chatId !== undefined && data !== undefined) {
      const user = userOf(from, chatId);
      const index = buttonRefOf(data);
      const key = messageKey(chatId, message.message_id);
      // The query's id is unique per press: a repeated update is reported once.
      const eventKey = typeof q.id === 'string' && q.id !== '' ? { eventKey: `query:${q.id}` } : {};
      if (index !== null && key !== undefined) events.push({ kind: 'postback', user, at: null, buttonRef: { messageExternalId: key, index }, ...eventKey });
      else if (index === null) events.push({ kind: 'postback', user, at: null, payload: data, ...eventKey });
    }
    // The client shows a spinner until the query is answered: answered in the webhook's response.
    const reply =
      typeof q.id === 'string'
        ? { contentType: 'application/json', body: JSON.stringify({ method: 'answerCallbackQuery', callback_query_id: q.id }) }
        : undefined;
    return reply ? { ok: true, events, reply } : { ok: true, events };
  }
  if (isObject(update.my_chat_member)) {
    const change = update.my_chat_member;
    const chat = isObject(change.chat) ? change.chat : {};
    const chatId = idOf(chat.id);
    const status = isObject(change.new_chat_member) ? change.new_chat_member.status : undefined;
    if (chat.type === 'private' && chatId !== undefined && status === 'kicked') {
      const at = typeof change.date === 'number' ? change.date * 1000 : null;
      // The update id is unique per update: a repeated call is reported once.
      events.push({
        kind: 'opt_out',
        reason: 'blocked',
        user: userOf(isObject(change.from) ? change.from : {}, chatId),
        at,
        eventKey: `update:${idOf(update.update_id)}`,
      });
    }
    return { ok: true, events };
  }
  return { ok: true, events };
}
