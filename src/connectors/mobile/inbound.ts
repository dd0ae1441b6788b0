import type { ChannelContext, ReportedStatus, InboundCall, InboundContent, InboundEvent, InboundParse, InboundUser } from '../connector.js';
import { verifySignedCall } from './signature.js';
import { hasReportToken, queryOf } from './status-url.js';

/**
 * The provider's calls on a channel's own URLs, as pure functions:
 * - `status` (GET, query): one status report per call -> a `status` event (`sent`/`buffered`:
 *   not final; `delivered`, `delivery_failed`, `expired`: final, with the provider's
 *   `statusErrorCode`), and an `opt_out` when the code is 103 (the recipient replied STOP);
 * - `receive` (POST, form): an inbound SMS -> a `message` event from the sender's number, in any
 *   of the provider's spellings (`createdDatetime`/`CreatedDatetime`, `mediaUrls`/`mediaURLs`,
 *   the short-code form `mid`, `shortcode`, `message`, `receive_datetime`).
 * Both are checked first by the signed JWT (signature.ts) on the URL exactly as called and the raw
 * body; a status report without a signature is taken only on the channel's own report URL, which
 * carries its token (status-url.ts). The provider is answered `OK`.
 *
 * A field given twice (`id=a&id=b`, `body=x&body=y`) counts once, as its first value, in the form
 * and in the report's query alike; a later one is ignored.
 */
export const STATUS_ENDPOINT = 'status';
export const RECEIVE_ENDPOINT = 'receive';

/** The status error code of a recipient who replied STOP. */
export const OPT_OUT_CODE = '103';

const OK_REPLY = { contentType: 'text/plain; charset=utf-8', body: 'OK' };

export interface InboundSettings {
  signatureHeaderName: string;
  jwtIssuer: string;
  now(): number;
}

/** The provider's RFC 3339 time; a `+` of the offset may arrive decoded as a space. */
export function providerTime(value: string | undefined): number | null {
  if (!value) return null;
  const text = value.trim();
  const compact = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/.exec(text);
  const iso = compact ? `${compact[1]}-${compact[2]}-${compact[3]}T${compact[4]}:${compact[5]}:${compact[6]}Z` : text.replace(/ (\d\d:?\d\d)$/, '+$1');
  const at = Date.parse(iso);
  return Number.isNaN(at) ? null : at;
}

const STATUSES: Record<string, { status: ReportedStatus; final: boolean } | undefined> = {
  sent: { status: 'sent', final: false },
  buffered: { status: 'sent', final: false },
  delivered: { status: 'delivered', final: true },
  delivery_failed: { status: 'failed', final: true },
  expired: { status: 'expired', final: true },
};

/** The first non-empty value of the first of `names` given (URLSearchParams.get reads a repeated field's first value). */
function first(fields: URLSearchParams, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = fields.get(name);
    if (value !== null && value !== '') return value;
  }
  return undefined;
}

function parseStatus(query: URLSearchParams): InboundParse {
  const id = first(query, 'id');
  const raw = first(query, 'status');
  if (id === undefined || raw === undefined) return { ok: false, status: 400, message: 'A status report names the message (id) and its status.' };
  const known = STATUSES[raw];
  // `scheduled` and statuses this service does not know change nothing.
  if (!known) return { ok: true, events: [], reply: OK_REPLY };
  const recipient = first(query, 'recipient');
  const user: InboundUser = recipient === undefined ? {} : { phoneNumber: recipient };
  const at = providerTime(first(query, 'statusDatetime'));
  const code = first(query, 'statusErrorCode');
  const reason = first(query, 'statusReason');
  const reference = first(query, 'reference');
  // The same report delivered again carries the same message, status and time.
  const key = `${id}:${raw}:${first(query, 'statusDatetime') ?? ''}`;
  const events: InboundEvent[] = [
    {
      kind: 'status',
      user,
      at,
      eventKey: key,
      report: {
        messageExternalId: id,
        ...(reference === undefined ? {} : { messageReference: reference }),
        status: known.status,
        final: known.final,
        ...(code === undefined ? {} : { platformCode: code }),
        ...(reason === undefined ? {} : { reason }),
      },
    },
  ];
  if (code === OPT_OUT_CODE) events.push({ kind: 'opt_out', user, at, eventKey: `${id}:${OPT_OUT_CODE}`, reason: 'stop', platformCode: code });
  return { ok: true, events, reply: OK_REPLY };
}

function parseReceive(rawBody: Buffer): InboundParse {
  const form = new URLSearchParams(rawBody.toString('utf8'));
  const id = first(form, 'id', 'mid');
  const originator = first(form, 'originator', 'sender');
  if (id === undefined || originator === undefined) return { ok: false, status: 400, message: 'An inbound SMS names its id and its originator.' };
  const text = first(form, 'body', 'message') ?? '';
  const at = providerTime(first(form, 'createdDatetime', 'CreatedDatetime', 'receive_datetime')) ?? null;
  const user: InboundUser = { phoneNumber: originator };
  const media = (first(form, 'mediaUrls', 'mediaURLs') ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => /^https?:\/\//.test(u));
  const contents: InboundContent[] = media.map((ref) => ({ type: 'file', media: { ref } }));
  if (text !== '' || contents.length === 0) contents.push({ type: 'text', text, matchQuickReplies: true });
  // The number the user wrote to: a shared number when the channel's sender id is not one.
  const to = first(form, 'recipient', 'receiver', 'shortcode');
  const events: InboundEvent[] = contents.map((content, i) => ({
    kind: 'message',
    user,
    at,
    externalId: i === 0 ? id : `${id}#${i}`,
    content,
    ...(to === undefined ? {} : { to }),
  }));
  if (text.trim().toUpperCase() === 'STOP') events.push({ kind: 'opt_out', user, at, eventKey: `stop:${id}`, reason: 'stop' });
  return { ok: true, events, reply: OK_REPLY };
}

export function parseCall(call: InboundCall, channel: ChannelContext, settings: InboundSettings): InboundParse {
  const token = call.headers[settings.signatureHeaderName.toLowerCase()];
  // An unsigned status report: taken on the channel's own report URL only.
  if (token === undefined && call.endpoint === STATUS_ENDPOINT && call.rawBody.length === 0) {
    if (hasReportToken(call.url, channel)) return parseStatus(queryOf(call.url));
    return { ok: false, status: 401, message: "An unsigned status report must come to the channel's report URL, with its token." };
  }
  const check = verifySignedCall({
    token,
    key: channel.secrets.signing_key,
    issuer: settings.jwtIssuer,
    url: call.url,
    rawBody: call.rawBody,
    nowMs: settings.now(),
  });
  if (!check.ok) return { ok: false, status: 401, message: `The provider's signature is missing or wrong: ${check.reason}.` };
  if (call.endpoint === STATUS_ENDPOINT) return parseStatus(queryOf(call.url));
  if (call.endpoint === RECEIVE_ENDPOINT) return parseReceive(call.rawBody);
  return { ok: false, status: 404, message: 'No such endpoint.' };
}
