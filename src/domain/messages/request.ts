import { Type, type Static, type TObject } from '@sinclair/typebox';
import { ApiError, say } from '../../lib/errors.js';
import { isPlainObject } from '../../lib/json.js';
import { toE164 } from '../../lib/phone.js';
import { assertValid } from '../../lib/validation.js';
import {
  BUTTON_SCHEMAS,
  CardShape,
  CONTENT_CHECK_SCHEMAS,
  LIMITS,
  MAX_CARDS,
  QUICK_REPLY_SCHEMAS,
  type Button,
  type Card,
  type Content,
  type Metadata,
  type QuickReply,
  type SendMessageBody,
} from '../../schemas/content.js';

/**
 * The channel-independent rules of a Send Message body: every content type, quick reply and
 * button checked at its limits, with errors naming the exact field. Pure (no store), so the
 * benchmark's bare baseline runs the very same checks.
 */
export interface SendRequest {
  channelId: string;
  contact: SendMessageBody['contact'];
  /** As it will be stored and returned (quick-reply titles truncated, call numbers in E.164). */
  content: Content;
  metadata: Metadata | undefined;
  /** The failover steps after the first, as requested (checked against their channels by Send Message). */
  fallbacks: SendMessageBody['fallbacks'];
}

/** Checks a value whose `type` picks its schema, so errors speak of that kind only. */
export function checkTagged<T extends TObject>(schemas: Record<string, T>, value: unknown, field: string): Static<T> {
  if (value === null) throw ApiError.invalid(field, null, say.cannotBeNull(field));
  if (!isPlainObject(value)) throw ApiError.invalid(field, value, `Property '${field}' must be an object.`);
  const tagField = `${field}.type`;
  if (!('type' in value)) throw ApiError.invalid(tagField, null, say.missing(tagField));
  const tag = value.type;
  if (tag === null) throw ApiError.invalid(tagField, null, say.cannotBeNull(tagField));
  const schema = typeof tag === 'string' && Object.hasOwn(schemas, tag) ? schemas[tag] : undefined;
  if (!schema) throw ApiError.invalid(tagField, tag, say.notAllowedValue(tagField, tag, Object.keys(schemas)));
  return assertValid(schema, value, field);
}

/** Characters as people count them: a surrogate pair is one. */
export function truncateChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join('');
}

function quickReplies(list: unknown[], field: string): QuickReply[] {
  return list.map((item, i) => {
    const reply = checkTagged(QUICK_REPLY_SCHEMAS, item, `${field}[${i}]`) as QuickReply;
    // A title over the limit is truncated, not refused (messaging-api.md).
    if (reply.type === 'text') return { ...reply, title: truncateChars(reply.title, LIMITS.quickReplyTitle) };
    return reply;
  });
}

function button(value: unknown, field: string, defaultRegion: string | undefined): Button {
  const b = checkTagged(BUTTON_SCHEMAS, value, field) as unknown as Button;
  if (b.type !== 'phone') return b;
  const e164 = toE164(b.payload, defaultRegion);
  if (!e164)
    throw ApiError.invalid(
      `${field}.payload`,
      b.payload,
      `Property '${field}.payload' is not a valid phone number (give it in international format, e.g. +420601123456).`,
    );
  return { ...b, payload: e164 };
}

function card(value: unknown, field: string, defaultRegion: string | undefined): Card {
  const c = assertValid(CardShape, value, field) as Card & { buttons?: unknown[] };
  if (c.title === undefined && c.text === undefined) throw ApiError.invalid(`${field}.title`, null, `A card needs a '${field}.title' or a '${field}.text'.`);
  if (c.buttons) return { ...c, buttons: c.buttons.map((b, j) => button(b, `${field}.buttons[${j}]`, defaultRegion)) };
  return c;
}

const Cards = Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_CARDS });

function structure(payload: unknown, defaultRegion: string | undefined): Card | Card[] {
  if (Array.isArray(payload)) {
    assertValid(Cards, payload, 'content.payload');
    return payload.map((c, i) => card(c, `content.payload[${i}]`, defaultRegion));
  }
  if (isPlainObject(payload)) return card(payload, 'content.payload', defaultRegion);
  throw ApiError.invalid('content.payload', payload ?? null, `Property 'content.payload' must be a card or an array of cards.`);
}

export function parseContent(value: unknown, defaultRegion?: string): Content {
  const content = checkTagged(CONTENT_CHECK_SCHEMAS, value, 'content') as Record<string, unknown> & { type: Content['type']; quick_replies?: unknown[] };
  const out = { ...content } as Record<string, unknown>;
  if (content.type === 'text' && typeof content.payload === 'string' && content.payload.trim().length === 0) {
    throw ApiError.invalid('content.payload', content.payload, `Property 'content.payload' cannot be empty.`);
  }
  if (content.type === 'structure') out.payload = structure(content.payload, defaultRegion);
  if (content.quick_replies) out.quick_replies = quickReplies(content.quick_replies, 'content.quick_replies');
  return out as unknown as Content;
}

export function parseSendRequest(body: SendMessageBody, options: { defaultRegion?: string | undefined } = {}): SendRequest {
  return {
    channelId: body.channel.id,
    contact: body.contact,
    content: parseContent(body.content, options.defaultRegion),
    metadata: body.metadata,
    fallbacks: body.fallbacks,
  };
}
