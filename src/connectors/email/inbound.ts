import type { ChannelContext, InboundCall, InboundContent, InboundEvent, InboundParse, SignatureBinding, StatusReport } from '../connector.js';
import { parseMailbox, parseMailboxes } from './addresses.js';
import { field, formOf, type FormPart } from './form.js';
import { REFERENCE_VARIABLE } from './options.js';
import { digestOf, type SignatureVerifier } from './signature.js';

/**
 * The provider's calls on a channel's own URLs, checked by the signature inside the body:
 * - `mail` (POST, urlencoded or multipart): a mail the channel's route forwarded -> a `message`
 *   from the sender's address: the stripped text (quoted history and signature removed), each
 *   attachment a file or image message, `metadata.email.subject` and `metadata.email.to`; the
 *   mail's Message-Id is the message's id (threading, and a retried forward is stored once);
 * - `events` (POST JSON): `delivered` -> delivered; `failed` permanent -> failed with
 *   `reason/SMTP code` as the platform code (failure-codes.ts); temporary failures are the
 *   provider's to retry and change nothing; `opened` -> read when the channel tracks opens.
 */
export const MAIL_ENDPOINT = 'mail';
export const EVENTS_ENDPOINT = 'events';

const OK_REPLY = { contentType: 'text/plain; charset=utf-8', body: 'OK' };

type Json = Record<string, unknown>;

function asObject(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The channel's key, else the account's (configuration). */
function keyOf(channel: ChannelContext, fallback: string | undefined): string | undefined {
  return channel.secrets.webhook_signing_key ?? fallback;
}

/** The text without quoted history (`> ` lines, "On … wrote:") and the signature (after `-- `). */
export function strippedText(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    if (line === '-- ' || line === '--') break;
    if (/^On .+wrote:\s*$/.test(line.trim())) break;
    if (line.startsWith('>')) continue;
    kept.push(line);
  }
  return kept.join('\n').trim();
}

/** `message-headers`: a JSON list of [name, value] pairs, every header as posted (repeated ones too). */
function mailHeaders(parts: readonly FormPart[]): Array<[string, string]> {
  try {
    const list = JSON.parse(field(parts, 'message-headers') ?? '[]') as unknown;
    if (!Array.isArray(list)) return [];
    return list.flatMap((pair) =>
      Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string' ? [[pair[0], pair[1]] as [string, string]] : [],
    );
  } catch {
    return [];
  }
}

function header(headers: ReadonlyArray<[string, string]>, name: string): string | undefined {
  return headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}

function bareId(id: string): string {
  return id.trim().replace(/^<|>$/g, '').trim();
}

function parseMail(parts: readonly FormPart[], binding: SignatureBinding): InboundParse {
  const headers = mailHeaders(parts);
  const from = parseMailbox(field(parts, 'from') ?? header(headers, 'From') ?? '') ?? parseMailbox(field(parts, 'sender') ?? '');
  if (!from) return { ok: false, status: 400, message: 'A forwarded mail names its sender (from).' };
  const messageId = header(headers, 'Message-Id') ?? field(parts, 'Message-Id');
  const token = field(parts, 'token') ?? '';
  const id = messageId ? bareId(messageId) : `token:${token}`;
  const date = Date.parse(header(headers, 'Date') ?? '');
  const timestamp = Number(field(parts, 'timestamp'));
  const at = Number.isNaN(date) ? (Number.isFinite(timestamp) ? timestamp * 1000 : null) : date;
  const subject = field(parts, 'subject') ?? header(headers, 'Subject') ?? '';
  const toHeader = header(headers, 'To') ?? field(parts, 'To');
  const to = parseMailboxes(toHeader);
  if (to.length === 0) {
    const recipient = parseMailbox(field(parts, 'recipient') ?? '');
    if (recipient) to.push(recipient);
  }
  const metadata = { email: { subject, to } };
  const stripped = field(parts, 'stripped-text');
  const text = stripped !== undefined ? stripped.trim() : strippedText(field(parts, 'body-plain') ?? '');
  const files = parts.filter((p) => p.file !== undefined && /^attachment-\d+$/.test(p.name));
  const contents: InboundContent[] = [];
  if (text !== '' || files.length === 0) contents.push({ type: 'text', text, matchQuickReplies: true });
  for (const part of files) {
    const file = part.file!;
    const kind = file.mimeType.toLowerCase().startsWith('image/') ? 'image' : 'file';
    contents.push({ type: kind, media: file });
  }
  const user = { email: from.email, ...(from.name ? { name: from.name } : {}) };
  const events: InboundEvent[] = contents.map((content, i) => ({
    kind: 'message',
    user,
    at,
    externalId: i === 0 ? id : `${id}#${i}`,
    content,
    metadata,
  }));
  return { ok: true, events, reply: OK_REPLY, binding };
}

/** `reason/SMTP code` of a permanent failure: classified by code (failure-codes.ts), never by its text. */
function failureCode(data: Json): string {
  const reason = str(data.reason) ?? 'generic';
  const code = asObject(data['delivery-status']).code;
  return typeof code === 'number' || typeof code === 'string' ? `${reason}/${code}` : reason;
}

function parseEvent(data: Json, channel: ChannelContext): InboundParse {
  const event = str(data.event);
  const recipient = parseMailbox(str(data.recipient) ?? '');
  const messageId = str(asObject(asObject(data.message).headers)['message-id']);
  const eventId = str(data.id);
  const at = typeof data.timestamp === 'number' ? Math.round(data.timestamp * 1000) : null;
  if (!event || !recipient || !messageId) return { ok: true, events: [], reply: OK_REPLY };
  const user = { email: recipient.email };
  const reference = str(asObject(data['user-variables'])[REFERENCE_VARIABLE]);
  const base = { messageExternalId: bareId(messageId), ...(reference === undefined ? {} : { messageReference: reference }) };
  const keyed = eventId === undefined ? {} : { eventKey: eventId };
  const status = (report: Omit<StatusReport, 'messageExternalId'>): InboundEvent => ({ kind: 'status', user, at, ...keyed, report: { ...base, ...report } });
  switch (event) {
    case 'delivered':
      return { ok: true, events: [status({ status: 'delivered', final: true })], reply: OK_REPLY };
    case 'failed': {
      // Temporary failures: the provider tries again; only its permanent verdict counts.
      if (str(data.severity) !== 'permanent') return { ok: true, events: [], reply: OK_REPLY };
      const reason = str(asObject(data['delivery-status']).description) ?? str(asObject(data['delivery-status']).message) ?? str(data.reason);
      return {
        ok: true,
        events: [status({ status: 'failed', final: true, platformCode: failureCode(data), ...(reason === undefined ? {} : { reason }) })],
        reply: OK_REPLY,
      };
    }
    case 'opened':
      if (channel.config.open_tracking !== true || at === null) return { ok: true, events: [], reply: OK_REPLY };
      return { ok: true, events: [{ kind: 'read', user, at, watermark: at, messageExternalId: bareId(messageId) }], reply: OK_REPLY };
    default:
      return { ok: true, events: [], reply: OK_REPLY };
  }
}

export interface InboundSettings {
  verifier: SignatureVerifier;
  webhookSigningKey?: string | undefined;
}

export function parseCall(call: InboundCall, channel: ChannelContext, settings: InboundSettings): InboundParse {
  const key = keyOf(channel, settings.webhookSigningKey);
  if (call.endpoint === MAIL_ENDPOINT) {
    const form = formOf(call);
    if (!form) return { ok: false, status: 401, message: 'A forwarded mail is a form.' };
    const { parts } = form;
    const check = settings.verifier.verify(
      key,
      { timestamp: field(parts, 'timestamp'), token: field(parts, 'token'), signature: field(parts, 'signature') },
      form.bodyDigest,
    );
    if (!check.ok) return { ok: false, status: 401, message: `The provider's signature is missing or wrong: ${check.reason}.` };
    return parseMail(parts, check.binding);
  }
  if (call.endpoint === EVENTS_ENDPOINT) {
    let body: Json;
    try {
      body = asObject(JSON.parse(call.rawBody.toString('utf8')));
    } catch {
      return { ok: false, status: 401, message: 'An event is JSON.' };
    }
    const signed = asObject(body.signature);
    const stamp = typeof signed.timestamp === 'number' ? String(signed.timestamp) : str(signed.timestamp);
    const check = settings.verifier.verify(key, { timestamp: stamp, token: str(signed.token), signature: str(signed.signature) }, digestOf(call.rawBody));
    if (!check.ok) return { ok: false, status: 401, message: `The provider's signature is missing or wrong: ${check.reason}.` };
    const parsed = parseEvent(asObject(body['event-data']), channel);
    return parsed.ok ? { ...parsed, binding: check.binding } : parsed;
  }
  return { ok: false, status: 404, message: 'No such endpoint.' };
}
