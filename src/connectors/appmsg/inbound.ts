import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundCall, InboundContent, InboundEvent, InboundParse, InboundUser } from '../connector.js';
import { parseJson, type Json } from './api.js';
import { markOf, marksOf } from './render.js';

/**
 * Callbacks, as pure functions. Each is signed with the lowercase hex HMAC-SHA256 of the raw body
 * under the bot's token, in the signature header or (as the platform's own SDK also accepts) the
 * `sig` query parameter; compared in constant time. One event per call:
 *
 * - `webhook` (the check after `set_webhook`): answered 200, nothing reported;
 * - `message` -> `message` (text, picture, video, file, location; a shared contact as text with
 *   its number; a `url` as text); a tapped keyboard button (its ActionBody, listed in the
 *   `tracking_data` of the bot's last message) -> text with `quick_reply` payload, or a
 *   `postback`; a tapped URL button's echo is dropped; stickers are not reported;
 * - `delivered` / `failed` -> status reports of the message named by its token;
 * - `seen` -> `read` of that message (and every earlier one);
 * - `subscribed`, `conversation_started` -> `opt_in` with the user's current profile;
 * - `unsubscribed` -> `opt_out`.
 * Messages are kept once by their token; other events once by their type and token.
 */
function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const tokenOf = (v: unknown): string | undefined => (typeof v === 'string' && /^\d+$/.test(v) ? v : typeof v === 'number' ? String(v) : undefined);

export function signatureOf(token: string, rawBody: Buffer): string {
  return createHmac('sha256', token).update(rawBody).digest('hex');
}

export function signatureMatches(call: InboundCall, headerName: string, token: string | undefined): boolean {
  const given = call.headers[headerName.toLowerCase()] ?? call.query.sig;
  if (!token || given === undefined) return false;
  const a = Buffer.from(signatureOf(token, call.rawBody), 'utf8');
  const b = Buffer.from(given.toLowerCase(), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The user as an event names them; `refresh` when the platform sent their whole profile. */
function userOf(raw: unknown, refresh: boolean): InboundUser | undefined {
  if (!isObject(raw)) return undefined;
  const id = str(raw.id);
  if (id === undefined) return undefined;
  const profile: Json = {};
  if (str(raw.country)) profile.country = raw.country;
  if (str(raw.language)) profile.language = raw.language;
  const user: InboundUser = { externalId: id, profile };
  const name = str(raw.name);
  if (name !== undefined) user.name = name;
  const avatar = str(raw.avatar);
  if (refresh) {
    user.refresh = true;
    if (avatar !== undefined) user.photo = { ref: avatar };
  }
  return user;
}

function mediaEvent(message: Json, type: 'image' | 'video' | 'file'): InboundContent | undefined {
  const ref = str(message.media);
  if (ref === undefined) return undefined;
  const name = str(message.file_name);
  return { type, media: { ref, ...(name ? { name } : {}) } };
}

/** The parts of a user's message (a picture's caption is a second part). */
function contents(message: Json): InboundContent[] {
  switch (message.type) {
    case 'text': {
      const text = str(message.text);
      return text === undefined ? [] : [{ type: 'text', text }];
    }
    case 'picture':
    case 'video':
    case 'file': {
      const media = mediaEvent(message, message.type === 'picture' ? 'image' : message.type);
      const caption = str(message.text);
      return [...(media ? [media] : []), ...(caption ? [{ type: 'text' as const, text: caption }] : [])];
    }
    case 'location': {
      const l = isObject(message.location) ? message.location : {};
      const latitude = Number(l.lat);
      const longitude = Number(l.lon);
      return Number.isFinite(latitude) && Number.isFinite(longitude) ? [{ type: 'location', latitude, longitude }] : [];
    }
    case 'contact': {
      const phone = isObject(message.contact) ? str(message.contact.phone_number) : undefined;
      return phone === undefined ? [] : [{ type: 'text', text: phone }];
    }
    case 'url': {
      const url = str(message.media);
      return url === undefined ? [] : [{ type: 'text', text: url }];
    }
    default:
      return [];
  }
}

function messageEvents(body: Json, token: string, at: number | null): InboundEvent[] {
  const user = userOf(body.sender, false);
  const message = isObject(body.message) ? body.message : undefined;
  if (!user || !message) return [];
  const text = message.type === 'text' ? str(message.text) : undefined;
  if (text !== undefined) {
    const marks = marksOf(message.tracking_data);
    const mark = markOf(text);
    if (marks.p.includes(mark)) return [{ kind: 'postback', user, at, payload: text, eventKey: `message:${token}` }];
    if (marks.q.includes(mark)) return [{ kind: 'message', user, at, externalId: token, content: { type: 'text', text, quickReplyPayload: text } }];
    // A tapped URL button also sends its URL as the user's text: the user wrote nothing.
    if (marks.u.includes(mark)) return [];
  }
  return contents(message).map((content, i) => ({ kind: 'message', user, at, externalId: i === 0 ? token : `${token}#${i}`, content }));
}

export function parseCallback(call: InboundCall, headerName: string, botToken: string | undefined): InboundParse {
  if (!signatureMatches(call, headerName, botToken)) return { ok: false, status: 403, message: 'The content signature is missing or wrong.' };
  let body: unknown;
  try {
    body = parseJson(call.rawBody.toString('utf8'));
  } catch {
    return { ok: false, status: 400, message: 'The request body is not valid JSON.' };
  }
  if (!isObject(body) || typeof body.event !== 'string') return { ok: false, status: 400, message: 'The request body is not a callback.' };
  const token = tokenOf(body.message_token);
  const at = typeof body.timestamp === 'number' ? body.timestamp : null;
  const userId = str(body.user_id);
  const key = token === undefined ? {} : { eventKey: `${body.event}:${token}` };
  switch (body.event) {
    case 'message':
      return { ok: true, events: token === undefined ? [] : messageEvents(body, token, at) };
    case 'delivered':
    case 'failed': {
      if (token === undefined || userId === undefined) return { ok: true, events: [] };
      const failed = body.event === 'failed';
      const reason = str(body.desc);
      const report = { messageExternalId: token, status: failed ? ('failed' as const) : ('delivered' as const), final: true, ...(reason ? { reason } : {}) };
      return { ok: true, events: [{ kind: 'status', user: { externalId: userId }, at, report, ...key }] };
    }
    case 'seen':
      if (token === undefined || userId === undefined) return { ok: true, events: [] };
      return { ok: true, events: [{ kind: 'read', user: { externalId: userId }, at, watermark: at ?? 0, messageExternalId: token }] };
    case 'subscribed':
    case 'conversation_started': {
      const user = userOf(body.user, true);
      if (!user) return { ok: true, events: [] };
      const context = body.event === 'conversation_started' ? str(body.context) : undefined;
      return { ok: true, events: [{ kind: 'opt_in', optInType: body.event, user, at, ...(context ? { payload: context } : {}), ...key }] };
    }
    case 'unsubscribed':
      if (userId === undefined) return { ok: true, events: [] };
      return { ok: true, events: [{ kind: 'opt_out', reason: 'unsubscribed', user: { externalId: userId }, at, ...key }] };
    default:
      // `webhook` (the registration check) and anything new: answered, nothing reported.
      return { ok: true, events: [] };
  }
}
