import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ChannelContext, InboundCall, InboundContent, InboundEvent, InboundParse, InboundUser } from '../connector.js';

/**
 * The platform's calls on a channel's own URL (`events`, POST), as pure functions:
 * - the handshake `{"clientToken", "secret"}` when the webhook is configured: the client token
 *   must be the channel's, and the answer is the secret as the raw body;
 * - push-style events `{"message": {"data": base64(JSON), ...}, "subscription"}`, signed with
 *   base64 HMAC-SHA512 of the decoded data under the channel's client token. The decoded data is
 *   a user message (text, file, location, a suggestion tapped: a REPLY becomes a message with its
 *   postback data as the quick reply's payload, an ACTION a `postback`), a user event (DELIVERED,
 *   READ of the message named; IS_TYPING is dropped), or a server event (TTL_EXPIRATION_REVOKED:
 *   the message expired unsent).
 * Events of another agent than the channel's are dropped. What the platform posts names the agent
 * with its domain (`<agent>@<agent-domain>`) while the API takes the bare id: the part before the
 * `@` is compared.
 */
export const EVENTS_ENDPOINT = 'events';

type Json = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function time(value: unknown): number | null {
  const text = str(value);
  if (text === undefined) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : at;
}

function fileContent(file: Json): InboundContent | null {
  const payload = (file.payload ?? {}) as Json;
  const ref = str(payload.fileUri);
  if (ref === undefined) return null;
  const mimeType = str(payload.mimeType);
  const kind = mimeType?.split('/')[0];
  const type = kind === 'image' || kind === 'video' || kind === 'audio' ? kind : 'file';
  const name = str(payload.fileName);
  return { type, media: { ref, ...(name === undefined ? {} : { name }), ...(mimeType === undefined ? {} : { mimeType }) } };
}

/** The bare agent id of an id that may carry the agent domain. */
export function bareAgentId(id: string): string {
  const at = id.indexOf('@');
  return at === -1 ? id : id.slice(0, at);
}

/** What a decoded payload reports. */
export function eventsOf(data: Json, agentId: string | undefined): InboundEvent[] {
  const from = str(data.agentId);
  if (agentId !== undefined && from !== undefined && bareAgentId(from) !== bareAgentId(agentId)) return [];
  const phone = str(data.senderPhoneNumber) ?? str(data.phoneNumber);
  if (phone === undefined) return [];
  const user: InboundUser = { phoneNumber: phone };
  const at = time(data.sendTime);
  const messageId = str(data.messageId);
  const eventType = str(data.eventType);
  if (eventType !== undefined) {
    switch (eventType) {
      case 'DELIVERED':
        return messageId === undefined ? [] : [{ kind: 'delivered', user, at, messageIds: [messageId], watermark: null }];
      case 'READ':
        return messageId === undefined ? [] : [{ kind: 'read', user, at, watermark: at ?? 0, messageExternalId: messageId }];
      case 'TTL_EXPIRATION_REVOKED':
        return messageId === undefined
          ? []
          : [
              {
                kind: 'status',
                user,
                at,
                eventKey: str(data.eventId) ?? `${messageId}:revoked`,
                report: { messageExternalId: messageId, status: 'expired', final: true, platformCode: eventType },
              },
            ];
      default:
        // IS_TYPING, and events this service does not report.
        return [];
    }
  }
  if (messageId === undefined) return [];
  const suggestion = data.suggestionResponse as Json | undefined;
  if (suggestion && typeof suggestion === 'object') {
    const postbackData = str(suggestion.postbackData);
    const text = str(suggestion.text) ?? postbackData ?? '';
    if (suggestion.type === 'ACTION') return postbackData === undefined ? [] : [{ kind: 'postback', user, at, eventKey: messageId, payload: postbackData }];
    return [
      {
        kind: 'message',
        user,
        at,
        externalId: messageId,
        content: { type: 'text', text, ...(postbackData === undefined ? {} : { quickReplyPayload: postbackData }) },
      },
    ];
  }
  let content: InboundContent | null = null;
  if (str(data.text) !== undefined) content = { type: 'text', text: data.text as string };
  else if (data.userFile && typeof data.userFile === 'object') content = fileContent(data.userFile as Json);
  else if (data.location && typeof data.location === 'object') {
    const { latitude, longitude } = data.location as Json;
    if (typeof latitude === 'number' && typeof longitude === 'number') content = { type: 'location', latitude, longitude };
  }
  return content === null ? [] : [{ kind: 'message', user, at, externalId: messageId, content }];
}

export function parseCall(call: InboundCall, channel: ChannelContext, signatureHeaderName: string): InboundParse {
  if (call.endpoint !== EVENTS_ENDPOINT || call.method !== 'POST') return { ok: false, status: 404, message: 'No such endpoint.' };
  const clientToken = channel.secrets.client_token;
  if (!clientToken) return { ok: false, status: 404, message: 'The channel has no client token.' };
  let body: Json;
  try {
    body = JSON.parse(call.rawBody.toString('utf8')) as Json;
  } catch {
    return { ok: false, status: 400, message: 'The body is not JSON.' };
  }
  if (body === null || typeof body !== 'object') return { ok: false, status: 400, message: 'The body is not a JSON object.' };
  // The handshake when the webhook is set: proven by the client token it carries.
  if (typeof body.clientToken === 'string' && body.secret !== undefined && body.message === undefined) {
    if (!sameText(body.clientToken, clientToken)) return { ok: false, status: 403, message: 'The client token is not the channel’s.' };
    return { ok: true, events: [], reply: { contentType: 'text/plain; charset=utf-8', body: String(body.secret) } };
  }
  const data = str((body.message as Json | undefined)?.data);
  const signature = call.headers[signatureHeaderName.toLowerCase()];
  if (data === undefined || signature === undefined) return { ok: false, status: 401, message: 'The call is not signed.' };
  const decoded = Buffer.from(data, 'base64');
  const expected = createHmac('sha512', clientToken).update(decoded).digest('base64');
  if (!sameText(signature, expected)) return { ok: false, status: 401, message: 'The signature is wrong.' };
  let payload: Json;
  try {
    payload = JSON.parse(decoded.toString('utf8')) as Json;
  } catch {
    return { ok: false, status: 400, message: 'The decoded data is not JSON.' };
  }
  const agentId = typeof channel.config.agent_id === 'string' ? channel.config.agent_id : undefined;
  return { ok: true, events: payload && typeof payload === 'object' ? eventsOf(payload, agentId) : [] };
}
