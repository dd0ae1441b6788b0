import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ApiError } from '../../lib/errors.js';
import { assertValid } from '../../lib/validation.js';
import { isPlainObject } from '../../lib/json.js';
import { LIMITS, LocationPayload } from '../../schemas/content.js';
import { WEB_CHAT_DEFINITION } from '../../channel-types/index.js';
import { ChatError } from './errors.js';

/**
 * What a browser may send, checked as strictly as the API checks a client: a user sends text
 * (possibly a tapped quick reply), media by URL (uploaded first with file_upload) or a location;
 * cards and quick-reply lists are the site's to send.
 */
const strict = { additionalProperties: false } as const;
const HttpUrl = Type.String({ format: 'uri', maxLength: 2048 });
const Media = Type.Object({ url: HttpUrl }, strict);
const QuickReplyAnswer = Type.Optional(Type.Object({ payload: Type.String({ minLength: 1, maxLength: LIMITS.quickReplyPayload }) }, strict));
export const METADATA_MAX_CHARS = 4000;
export const NOTIFICATION_PAYLOAD_MAX_CHARS = 16_000;

const member = (type: string, payload: TSchema) => Type.Object({ type: Type.Literal(type), payload, quick_reply: QuickReplyAnswer }, strict);
// A Map, so a type named after something every object inherits (`__proto__`, `toString`) is unknown.
const CLIENT_CONTENT = new Map<string, TSchema>([
  ['text', member('text', Type.String({ minLength: 1, maxLength: WEB_CHAT_DEFINITION.capabilities.maxTextLength }))],
  ['image', member('image', Media)],
  ['video', member('video', Media)],
  ['audio', member('audio', Media)],
  ['file', member('file', Media)],
  ['location', member('location', LocationPayload)],
]);
export const CLIENT_CONTENT_TYPES = [...CLIENT_CONTENT.keys()];

export type ClientContent = { type: string; payload: unknown; quick_reply?: { payload: string } };

/** Runs a schema check and answers its first problem as a chat error naming the field. */
function check<T extends TSchema>(schema: T, value: unknown, field: string): Static<T> {
  try {
    return assertValid(schema, value, field);
  } catch (error) {
    if (error instanceof ApiError) {
      const first = error.details[0];
      throw ChatError.invalid(first?.field ?? field, first?.message ?? 'Invalid value.');
    }
    throw error;
  }
}

export function requireObject(data: unknown, event: string): Record<string, unknown> {
  if (!isPlainObject(data)) throw new ChatError(400, `The ${event} event needs an object.`);
  return data;
}

function checkMetadata(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw ChatError.invalid('metadata', "Property 'metadata' must be an object.");
  if (JSON.stringify(value).length > METADATA_MAX_CHARS)
    throw ChatError.invalid('metadata', `Property 'metadata' must be at most ${METADATA_MAX_CHARS} characters of JSON.`);
  return value;
}

function only(data: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(data)) if (!allowed.includes(key)) throw ChatError.invalid(key, `Property '${key}' is not supported.`);
}

export function parseMessageClient(data: unknown): { content: ClientContent; metadata: Record<string, unknown> | undefined } {
  const body = requireObject(data, 'message_client');
  only(body, ['content', 'metadata']);
  const content = body.content;
  if (!isPlainObject(content))
    throw ChatError.invalid('content', content === undefined ? "Missing property 'content'." : "Property 'content' must be an object.");
  const type = content.type;
  const schema = typeof type === 'string' ? CLIENT_CONTENT.get(type) : undefined;
  if (!schema) {
    if (type === undefined) throw ChatError.invalid('content.type', "Missing property 'content.type'.");
    throw ChatError.invalid(
      'content.type',
      `Property 'content.type' with value '${String(type)}' does not match any allowed value: ${CLIENT_CONTENT_TYPES.join(', ')}.`,
    );
  }
  return { content: check(schema, content, 'content') as ClientContent, metadata: checkMetadata(body.metadata) };
}

export function parseNotificationClient(data: unknown): { payload: unknown; metadata: Record<string, unknown> | undefined } {
  const body = requireObject(data, 'notification_client');
  only(body, ['type', 'payload', 'metadata']);
  if (body.type !== 'custom') throw ChatError.invalid('type', `Property 'type' with value '${String(body.type)}' does not match any allowed value: custom.`);
  if (!Object.hasOwn(body, 'payload') || body.payload === undefined) throw ChatError.invalid('payload', "Missing property 'payload'.");
  if (JSON.stringify(body.payload).length > NOTIFICATION_PAYLOAD_MAX_CHARS)
    throw ChatError.invalid('payload', `Property 'payload' must be at most ${NOTIFICATION_PAYLOAD_MAX_CHARS} characters of JSON.`);
  return { payload: body.payload, metadata: checkMetadata(body.metadata) };
}

export function parsePostback(data: unknown): string {
  const body = requireObject(data, 'postback');
  only(body, ['payload']);
  return check(Type.Object({ payload: Type.String({ minLength: 1, maxLength: LIMITS.postbackPayload }) }), body, '').payload;
}

export function parseMessageDelivered(data: unknown): number {
  const body = requireObject(data, 'message_delivered');
  const raw = body.message_id;
  const id = typeof raw === 'string' && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw ChatError.invalid('message_id', "Property 'message_id' must be a message id.");
  return id;
}

export const LIST_MAX = 100;
export function parseListMessages(data: unknown): { max: number; before: number | null } {
  const body = data === undefined || data === null ? {} : requireObject(data, 'list_messages');
  const pagination = body.pagination === undefined || body.pagination === null ? {} : body.pagination;
  if (!isPlainObject(pagination)) throw ChatError.invalid('pagination', "Property 'pagination' must be an object.");
  const max = pagination.max ?? 10;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > LIST_MAX)
    throw ChatError.invalid('pagination.max', `Property 'pagination.max' must be a whole number from 1 to ${LIST_MAX}.`);
  const cursor = pagination.cursor_next;
  if (cursor === undefined || cursor === null || cursor === '') return { max, before: null };
  const before = typeof cursor === 'string' && /^[1-9][0-9]{0,15}$/.test(cursor) ? Number(cursor) : NaN;
  if (!Number.isSafeInteger(before)) throw ChatError.invalid('pagination.cursor_next', "Property 'pagination.cursor_next' is not a cursor this server gave.");
  return { max, before };
}

export function parseFileUpload(data: unknown, maxBytes: number): { name: string; mimeType: string; bytes: Uint8Array } {
  const body = requireObject(data, 'file_upload');
  only(body, ['name', 'mime_type', 'content_buffer']);
  const name = body.name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200)
    throw ChatError.invalid('name', "Property 'name' must be a file name of 1 to 200 characters.");
  const mime = body.mime_type;
  if (typeof mime !== 'string' || mime.length === 0 || mime.length > 255)
    throw ChatError.invalid('mime_type', "Property 'mime_type' must be a media type such as image/png.");
  const raw = body.content_buffer;
  const bytes = raw instanceof Uint8Array ? raw : raw instanceof ArrayBuffer ? new Uint8Array(raw) : null;
  if (!bytes) throw ChatError.invalid('content_buffer', "Property 'content_buffer' must be binary data.");
  if (bytes.byteLength === 0) throw ChatError.invalid('content_buffer', 'The file is empty.');
  if (bytes.byteLength > maxBytes) throw new ChatError(413, `The file is larger than the limit of ${maxBytes} bytes.`, 'content_buffer');
  return { name, mimeType: mime, bytes };
}
