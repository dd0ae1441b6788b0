import type { ChannelContext, InboundCall, InboundEvent, InboundParse, InboundUser } from '../connector.js';
import { hmacHex, safeEqual } from '../../lib/crypto.js';

/**
 * The platform's callbacks on a channel's own URL (`/v1/inbound/{channel_id}/callbacks`), as a
 * pure function. The real callback format is partner-confidential; this is the stand-in's own
 * documented contract (sandbox/appmsg_business_messages/README.md): POST JSON signed with
 * hex HMAC-SHA256(callback secret, raw body) in a header, checked before anything is read.
 * - `status` `delivered` -> a delivery report; `seen` -> the message read (by its token);
 *   `expired` -> the message failed with code 4;
 * - `reply` -> a message from the user's number (a list message's choice comes back as the
 *   option's title and is matched to the quick reply's payload);
 * - `unsubscribe` -> an opt-out; `subscribe` reports nothing.
 * Events of another sender id than the channel's (or the shared one, in shared mode) are refused.
 */
type Json = Record<string, unknown>;

export interface InboundSettings {
  signatureHeaderName: string;
  sharedSenderId: string | null;
}

function digitsOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return typeof value === 'string' && /^\d{1,30}$/.test(value) ? value : undefined;
}

/** A number or numeric string that may exceed a double: read from the raw text by its key. */
function bigDigits(raw: string, key: string): string | undefined {
  return new RegExp(`"${key}"\\s*:\\s*"?(\\d{1,30})"?`).exec(raw)?.[1];
}

function userOf(dest: unknown): InboundUser | null {
  const digits = digitsOf(dest);
  return digits ? { phoneNumber: `+${digits}` } : null;
}

/** The sender ids the channel's callbacks may name. */
function senderIds(channel: ChannelContext, settings: InboundSettings): string[] {
  const own = typeof channel.config.sender_id === 'string' ? channel.config.sender_id : '';
  return channel.mode === 'shared' && settings.sharedSenderId ? [own, settings.sharedSenderId] : [own];
}

export function parseCallback(call: InboundCall, channel: ChannelContext, settings: InboundSettings): InboundParse {
  const secret = channel.secrets.callback_secret;
  const given = call.headers[settings.signatureHeaderName.toLowerCase()];
  if (!secret || !given || !safeEqual(given.trim().toLowerCase(), hmacHex('sha256', secret, call.rawBody))) {
    return { ok: false, status: 403, message: 'The callback signature is missing or wrong.' };
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
  const user = userOf(body.dest);
  const at = typeof body.timestamp === 'number' && Number.isFinite(body.timestamp) ? body.timestamp : null;
  const events: InboundEvent[] = [];
  switch (body.event) {
    case 'status': {
      const token = bigDigits(raw, 'message_token');
      if (!token || !user) return { ok: false, status: 400, message: 'A status callback names the message (message_token) and the number (dest).' };
      const seq = bigDigits(raw, 'seq');
      const reference = seq === undefined ? {} : { messageReference: seq };
      if (body.status === 'delivered' || body.status === 'expired') {
        events.push({
          kind: 'status',
          user,
          at,
          eventKey: `${token}:${body.status}`,
          report: { messageExternalId: token, ...reference, status: body.status, final: true, platformCode: String(body.status) },
        });
      } else if (body.status === 'seen') {
        events.push({ kind: 'read', user, at, watermark: at ?? 0, messageExternalId: token });
      }
      break;
    }
    case 'reply': {
      if (!user || typeof body.text !== 'string' || body.text === '')
        return { ok: false, status: 400, message: 'A reply names the number (dest) and its text.' };
      // The reply's own id where the platform gives one, else what names it in the signed body.
      const id = bigDigits(raw, 'reply_token') ?? `${user.phoneNumber}:${at ?? ''}:${bigDigits(raw, 'message_token') ?? ''}`;
      events.push({ kind: 'message', user, at, externalId: id, content: { type: 'text', text: body.text, matchQuickReplies: true } });
      break;
    }
    case 'unsubscribe':
      if (user) events.push({ kind: 'opt_out', user, at, reason: 'unsubscribed', eventKey: `unsubscribe:${user.phoneNumber}:${at ?? ''}` });
      break;
    default:
      // `subscribe` and events this service does not know change nothing.
      break;
  }
  return { ok: true, events, reply: { contentType: 'application/json', body: '{"status":0}' } };
}
