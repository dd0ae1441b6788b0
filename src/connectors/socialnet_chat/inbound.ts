import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundCall, InboundContent, InboundEvent, InboundParse, InboundUser } from '../connector.js';

/**
 * The platform's webhook calls, as pure functions: the signature check on
 * the raw body, the GET subscription handshake, and the envelope
 * `{"object":"page","entry":[{"id":PAGE_ID,"messaging":[event]}]}` mapped to neutral events.
 */
type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Milliseconds; newer payloads may carry the time as a string. */
function millis(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** Byte-exact comparison in constant time (for equal lengths). */
function sameBytes(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Hex digests: the platform writes them in lower case; an upper-case one is the same digest. */
function hexEqual(expected: string, given: string): boolean {
  return sameBytes(expected, given.toLowerCase());
}

/**
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret, raw body)>`, or the legacy
 * `X-Hub-Signature: sha1=...` when only that one is sent. Computed on the exact bytes received
 * (the platform escapes non-ASCII and "/" in its JSON), compared in constant time.
 */
export function signatureValid(call: InboundCall, appSecret: string | undefined): boolean {
  if (!appSecret) return false;
  const sha256 = call.headers['x-hub-signature-256'];
  if (sha256 !== undefined) {
    if (!sha256.startsWith('sha256=')) return false;
    return hexEqual(createHmac('sha256', appSecret).update(call.rawBody).digest('hex'), sha256.slice(7));
  }
  const sha1 = call.headers['x-hub-signature'];
  if (sha1 === undefined || !sha1.startsWith('sha1=')) return false;
  return hexEqual(createHmac('sha1', appSecret).update(call.rawBody).digest('hex'), sha1.slice(5));
}

/** GET `?hub.mode=subscribe&hub.challenge=N&hub.verify_token=T`: 200 with N when T is exactly the configured token. */
export function handshake(call: InboundCall, verifyToken: string | undefined): { status: number; body: string } | null {
  if (call.query['hub.mode'] === undefined) return null;
  const token = call.query['hub.verify_token'] ?? '';
  const ok = call.query['hub.mode'] === 'subscribe' && verifyToken !== undefined && verifyToken !== '' && sameBytes(verifyToken, token);
  return ok
    ? { status: 200, body: call.query['hub.challenge'] ?? '' }
    : { status: 403, body: 'The subscription handshake was refused: hub.mode must be subscribe and hub.verify_token must match.' };
}

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'file']);

/** A message's parts: its text (with a quick reply's payload) and each attachment. */
function contents(message: Json): InboundContent[] {
  const out: InboundContent[] = [];
  const text = typeof message.text === 'string' && message.text !== '' ? message.text : undefined;
  const attachments = Array.isArray(message.attachments) ? message.attachments.filter(isObject) : [];
  if (text !== undefined) {
    const payload = isObject(message.quick_reply) ? str(message.quick_reply.payload) : undefined;
    out.push(payload === undefined ? { type: 'text', text } : { type: 'text', text, quickReplyPayload: payload });
  }
  for (const a of attachments) {
    const type = str(a.type) ?? '';
    const payload = isObject(a.payload) ? a.payload : {};
    if (type === 'location') {
      const c = isObject(payload.coordinates) ? payload.coordinates : {};
      const latitude = Number(c.lat);
      const longitude = Number(c.long);
      if (Number.isFinite(latitude) && Number.isFinite(longitude)) out.push({ type: 'location', latitude, longitude });
      continue;
    }
    const url = str(payload.url);
    if (url === undefined) continue; // link shares without a file, stickers without a URL
    out.push({ type: MEDIA_TYPES.has(type) ? (type as 'image' | 'video' | 'audio' | 'file') : 'file', media: { ref: url } });
  }
  return out;
}

/** Several parts of one platform message become several messages: the first keeps the platform id. */
function partId(mid: string, index: number): string {
  return index === 0 ? mid : `${mid}#${index}`;
}

/**
 * The identity of an event the platform gives no id (opt-ins, older postbacks): its time as signed
 * (ms) and what names it (kind, user, payload), hashed to a fixed length. A repeated call has the
 * same key; the same user doing the same thing twice in one millisecond counts once. Without a
 * time there is no key, and a repeated call is reported again.
 */
function signedKey(at: number | null, parts: ReadonlyArray<string | undefined>): string | undefined {
  if (at === null) return undefined;
  return `at:${createHash('sha256')
    .update(JSON.stringify([at, ...parts.map((p) => p ?? null)]))
    .digest('base64url')}`;
}

function eventsOf(pageId: string, e: Json, appId: string | undefined): InboundEvent[] {
  const sender = isObject(e.sender) ? e.sender : {};
  const recipient = isObject(e.recipient) ? e.recipient : {};
  const at = millis(e.timestamp);
  const senderId = str(sender.id);
  const user: InboundUser = {};
  if (senderId !== undefined) user.externalId = senderId;
  if (str(sender.user_ref) !== undefined) user.userRef = str(sender.user_ref);
  const base = { channelKey: pageId, at };

  if (isObject(e.message)) {
    const message = e.message;
    const mid = str(message.mid);
    if (mid === undefined) return [];
    if (message.is_echo === true) {
      // The service's own sends were reported when they were made; echoes of other apps and of
      // the page inbox are messages someone else sent to the user.
      if (appId !== undefined && str(message.app_id) === appId) return [];
      const psid = str(recipient.id);
      if (psid === undefined) return [];
      const metadata = str(message.metadata);
      return contents(message).map((content, i) => ({
        ...base,
        kind: 'echo' as const,
        user: { externalId: psid },
        externalId: partId(mid, i),
        content,
        ...(metadata !== undefined ? { platformMetadata: metadata } : {}),
      }));
    }
    if (user.externalId === undefined) return [];
    return contents(message).map((content, i) => ({ ...base, kind: 'message' as const, user, externalId: partId(mid, i), content }));
  }
  if (isObject(e.delivery)) {
    if (user.externalId === undefined) return [];
    const mids = Array.isArray(e.delivery.mids) ? e.delivery.mids.map(str).filter((m): m is string => m !== undefined) : [];
    return [{ ...base, kind: 'delivered', user, messageIds: mids, watermark: millis(e.delivery.watermark) }];
  }
  if (isObject(e.read)) {
    const watermark = millis(e.read.watermark);
    if (user.externalId === undefined || watermark === null) return [];
    return [{ ...base, kind: 'read', user, watermark }];
  }
  if (isObject(e.postback)) {
    const payload = str(e.postback.payload);
    if ((user.externalId === undefined && user.userRef === undefined) || payload === undefined) return [];
    const mid = str(e.postback.mid);
    const eventKey = mid !== undefined ? `mid:${mid}` : signedKey(at, ['postback', user.externalId, user.userRef, payload]);
    return [{ ...base, kind: 'postback', user, payload, ...(eventKey !== undefined ? { eventKey } : {}) }];
  }
  if (isObject(e.optin)) {
    const optin = e.optin;
    const prior = isObject(e.prior_message) ? e.prior_message : undefined;
    // A message request sent by phone number was accepted (customer matching).
    const keyed = (parts: ReadonlyArray<string | undefined>) => {
      const eventKey = signedKey(at, ['opt_in', ...parts]);
      return eventKey !== undefined ? { eventKey } : {};
    };
    if (prior && str(prior.source) === 'customer_matching' && senderId !== undefined) {
      const phone = str(prior.identifier);
      return [
        {
          ...base,
          kind: 'opt_in',
          optInType: 'phone_number',
          user: { externalId: senderId, ...(phone ? { phoneNumber: phone } : {}) },
          ...keyed(['phone_number', senderId, phone]),
        },
      ];
    }
    const ref = str(optin.ref);
    const userRef = str(optin.user_ref);
    if (userRef !== undefined) {
      return [
        {
          ...base,
          kind: 'opt_in',
          optInType: 'checkbox',
          user: { userRef, ...(senderId ? { externalId: senderId } : {}) },
          ...(ref !== undefined ? { payload: ref } : {}),
          ...keyed(['checkbox', userRef, senderId, ref]),
        },
      ];
    }
    if (optin.type !== undefined || senderId === undefined) return []; // marketing-message opt-ins: not reported
    return [
      {
        ...base,
        kind: 'opt_in',
        optInType: 'send_to_socialnet',
        user,
        ...(ref !== undefined ? { payload: ref } : {}),
        ...keyed(['send_to_socialnet', senderId, ref]),
      },
    ];
  }
  if (isObject(e.referral)) {
    // A short link, ad or QR code opened the existing thread; without a sender there is no user.
    const ref = str(e.referral.ref);
    if (senderId === undefined) return [];
    const eventKey = signedKey(at, ['referral', senderId, ref, str(e.referral.source)]);
    return [
      { ...base, kind: 'opt_in', optInType: 'referral', user, ...(ref !== undefined ? { payload: ref } : {}), ...(eventKey !== undefined ? { eventKey } : {}) },
    ];
  }
  return [];
}

/** Checks the signature, then reads every messaging event of every page in the call. */
export function parseWebhook(call: InboundCall, appSecret: string | undefined, appId: string | undefined): InboundParse {
  if (!appSecret) return { ok: false, status: 403, message: 'Inbound calls cannot be verified: the platform app secret is not configured.' };
  if (!signatureValid(call, appSecret)) return { ok: false, status: 403, message: 'The request signature is missing or invalid.' };
  let body: unknown;
  try {
    body = JSON.parse(call.rawBody.toString('utf8')) as unknown;
  } catch {
    return { ok: false, status: 400, message: 'The request body is not valid JSON.' };
  }
  if (!isObject(body) || !Array.isArray(body.entry)) return { ok: false, status: 400, message: 'The request body is not a platform event envelope.' };
  const events: InboundEvent[] = [];
  if (body.object !== 'page') return { ok: true, events };
  for (const entry of body.entry) {
    if (!isObject(entry)) continue;
    const pageId = str(entry.id);
    if (pageId === undefined) continue;
    // `standby`: the user wrote while another app (the page inbox, a human agent) owns the thread;
    // the conversation is still the contact's, so those events are reported like the others.
    for (const list of [entry.messaging, entry.standby]) {
      if (!Array.isArray(list)) continue;
      for (const e of list) if (isObject(e)) events.push(...eventsOf(pageId, e, appId));
    }
  }
  return { ok: true, events };
}
