import type { ChannelContext, InboundCall, InboundEvent, InboundParse, InboundUser } from '../connector.js';
import { hmacHex, safeEqual } from '../../lib/crypto.js';
import type { CallbackAuth, CallbackStatus } from './options.js';

/**
 * The platform's callbacks on a channel's own URL (`/v1/inbound/{channel_id}/callbacks`), as a
 * pure function. The vendor's document is partner-confidential; the shape is the one public
 * emulators and integrations of the partner API show (README.md, "Callbacks", lists the evidence):
 * - a status report `{message_token, message_status, message_time, phone_number, service_id}`,
 *   `message_status` a number (0 delivered, 1 seen, 2 expired, 4 subscribe, 5 unsubscribe by
 *   default; the setting APPMSG_BUSINESS_STATUS_CODES changes the map);
 * - a reply `{message_token (the reply's own), phone_number, message_time, service_id,
 *   message: {text, tracking_data?}}`: a message from the user's number (a list message's choice
 *   comes back as the option's title and is matched to the quick reply's payload).
 * Names seen elsewhere for the same facts are read too (`time`/`timestamp`, `dest`, a top-level
 * `text`, a status given by name). The call is authenticated first (the token in the URL, or a
 * signature header), then a `service_id` other than the channel's (or the shared one, in shared
 * mode) is refused.
 */
type Json = Record<string, unknown>;

export interface InboundSettings {
  callbackAuth: CallbackAuth;
  signatureHeaderName: string;
  statusCodes: Readonly<Record<string, CallbackStatus>>;
  sharedSenderId: string | null;
}

function digitsOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value !== 'string') return undefined;
  const digits = value.replace(/^\+/, '');
  return /^\d{1,30}$/.test(digits) ? digits : undefined;
}

/** A number or numeric string that may exceed a double (a 19-digit token): read from the raw text by its key. */
function bigDigits(raw: string, key: string): string | undefined {
  return new RegExp(`"${key}"\\s*:\\s*"?(\\d{1,30})"?`).exec(raw)?.[1];
}

function userOf(body: Json): InboundUser | null {
  const digits = digitsOf(body.phone_number ?? body.dest);
  return digits ? { phoneNumber: `+${digits}` } : null;
}

/** The event's time (ms): `message_time`, else `time` or `timestamp`. */
function timeOf(body: Json): number | null {
  for (const value of [body.message_time, body.time, body.timestamp]) {
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    if (typeof value === 'string' && /^\d{1,16}$/.test(value)) return Number(value);
  }
  return null;
}

/** The sender ids the channel's callbacks may name. */
function senderIds(channel: ChannelContext, settings: InboundSettings): string[] {
  const own = typeof channel.config.sender_id === 'string' ? channel.config.sender_id : '';
  return channel.mode === 'shared' && settings.sharedSenderId ? [own, settings.sharedSenderId] : [own];
}

function authentic(call: InboundCall, secret: string | undefined, settings: InboundSettings): boolean {
  if (!secret) return false;
  if (settings.callbackAuth === 'url_token') {
    const key = call.query.token;
    return typeof key === 'string' && safeEqual(key, secret);
  }
  const given = call.headers[settings.signatureHeaderName.toLowerCase()];
  return typeof given === 'string' && safeEqual(given.trim().toLowerCase(), hmacHex('sha256', secret, call.rawBody));
}

/** What a status callback reports: its number through the map, or a name given as such. */
function statusOf(body: Json, settings: InboundSettings): CallbackStatus | 'unknown' | null {
  const value = body.message_status ?? body.status;
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' || (typeof value === 'string' && /^\d{1,3}$/.test(value))) return settings.statusCodes[String(value)] ?? 'unknown';
  if (typeof value === 'string' && Object.values(settings.statusCodes).includes(value as CallbackStatus)) return value as CallbackStatus;
  return 'unknown';
}

/** A reply's text: `message.text` (or a top-level `text`). */
function replyText(body: Json): string | null {
  const message = body.message !== null && typeof body.message === 'object' ? (body.message as Json) : null;
  const text = message ? message.text : body.text;
  return typeof text === 'string' && text !== '' ? text : null;
}

export function parseCallback(call: InboundCall, channel: ChannelContext, settings: InboundSettings): InboundParse {
  if (!authentic(call, channel.secrets.callback_secret, settings)) {
    return {
      ok: false,
      status: 403,
      message: settings.callbackAuth === 'url_token' ? 'The callback URL has no token or a wrong one.' : 'The callback signature is missing or wrong.',
    };
  }
  const raw = call.rawBody.toString('utf8');
  let body: Json;
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    body = parsed as Json;
  } catch {
    return { ok: false, status: 400, message: 'The callback body is not a JSON object.' };
  }
  const serviceId = bigDigits(raw, 'service_id');
  if (serviceId !== undefined && !senderIds(channel, settings).includes(serviceId)) {
    return { ok: false, status: 403, message: "The callback names another sender id than the channel's." };
  }
  const user = userOf(body);
  const at = timeOf(body);
  const token = bigDigits(raw, 'message_token');
  const events: InboundEvent[] = [];
  const status = statusOf(body, settings);
  const text = replyText(body);
  if (status === null && (body.message !== undefined || body.text !== undefined)) {
    // A reply; one without text (a picture, a file) is answered and not stored.
    if (!user) return { ok: false, status: 400, message: 'A reply names the number (phone_number).' };
    if (text !== null) {
      // The reply's own token names it, so a callback the platform repeats is stored once.
      const id = token ?? `${user.phoneNumber}:${at ?? ''}:${text}`;
      events.push({ kind: 'message', user, at, externalId: id, content: { type: 'text', text, matchQuickReplies: true } });
    }
  } else if (status === 'delivered' || status === 'expired' || status === 'seen') {
    if (!token || !user) return { ok: false, status: 400, message: 'A status callback names the message (message_token) and the number (phone_number).' };
    const seq = bigDigits(raw, 'seq');
    const reference = seq === undefined ? {} : { messageReference: seq };
    const code = String(body.message_status ?? body.status);
    if (status === 'seen') events.push({ kind: 'read', user, at, watermark: at ?? 0, messageExternalId: token });
    else {
      events.push({
        kind: 'status',
        user,
        at,
        eventKey: `${token}:${status}`,
        report: { messageExternalId: token, ...reference, status, final: true, platformCode: code },
      });
    }
  } else if (status === 'unsubscribe') {
    if (user) events.push({ kind: 'opt_out', user, at, reason: 'unsubscribed', eventKey: `unsubscribe:${user.phoneNumber}:${at ?? ''}` });
  }
  // `subscribe` and statuses this service does not know change nothing.
  return { ok: true, events, reply: { contentType: 'application/json', body: '{"status":0}' } };
}
