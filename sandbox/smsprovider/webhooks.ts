import type { OutboundRecord } from '../shared/outbound.js';
import { randomHex } from '../shared/ids.js';
import { rfc3339 } from './format.js';
import type { ResolvedSmsproviderOptions } from './options.js';
import { signJwt, signLegacy } from './signing.js';
import type { SmsproviderState, SpMessage, SpRecipient } from './state.js';

// Calls to the service: status reports (GET with query) and inbound messages (urlencoded POST),
// both signed with the account's signing key.

export class SmsWebhooks {
  constructor(
    private readonly state: SmsproviderState,
    private readonly options: ResolvedSmsproviderOptions,
  ) {}

  private headers(url: string, body: string, kind: 'status_report' | 'inbound'): Record<string, string> {
    if (kind === 'status_report' && !this.state.signStatusReports) return {};
    const now = this.state.clock.now();
    const headers: Record<string, string> = {
      [this.options.signatureHeaderName.toLowerCase()]: signJwt(this.state.signingKey, this.options.jwtIssuer, url, body, now, this.state.jwtAlgorithm),
    };
    if (this.options.legacySignature) {
      const ts = Math.floor(now / 1000);
      headers[this.options.legacyTimestampHeaderName.toLowerCase()] = String(ts);
      headers[this.options.legacySignatureHeaderName.toLowerCase()] = signLegacy(this.state.signingKey, ts, url, body);
    }
    return headers;
  }

  reportUrlFor(message: SpMessage): string | null {
    return message.reportUrl ?? this.state.statusReportUrl;
  }

  /** Why a status report of this message is not sent, or null when it is. */
  reportSkipped(message: SpMessage): string | null {
    if (message.test) return 'sent with a test access key';
    // The provider reports only messages sent with a `reference`.
    if (message.reference === null) return 'the message has no reference';
    if (this.reportUrlFor(message) === null) return 'no reportUrl and no account status report URL';
    return null;
  }

  async statusReport(message: SpMessage, r: SpRecipient): Promise<OutboundRecord | null> {
    const target = this.reportUrlFor(message);
    if (target === null || this.reportSkipped(message) !== null) return null;
    const q: Array<[string, string]> = [
      ['datacoding', message.datacoding],
      ['id', message.id],
      ['mccmnc', '310010'],
      ['messageLength', String(message.body.length)],
      ['messagePartCount', String(r.messagePartCount)],
      ['ported', '0'],
      ['price[amount]', r.price.amount.toFixed(3)],
      ['price[currency]', r.price.currency],
      ['recipient', String(r.recipient)],
      ['reference', message.reference ?? ''],
      ['status', r.status],
      ['statusDatetime', rfc3339(r.statusDatetime)],
    ];
    if (r.statusReason !== null) q.push(['statusReason', r.statusReason]);
    if (r.statusErrorCode !== null) q.push(['statusErrorCode', String(r.statusErrorCode)]);
    const href = withQuery(target, q);
    return this.state.webhooks.send({
      method: 'GET',
      url: href,
      kind: 'status_report',
      headers: this.headers(href, '', 'status_report'),
      timeoutMs: this.options.webhookTimeoutMs,
    });
  }

  async inbound(receiveUrl: string, fields: Record<string, string>): Promise<OutboundRecord> {
    const body = new URLSearchParams(fields).toString();
    const href = new URL(receiveUrl).href;
    return this.state.webhooks.send({
      method: 'POST',
      url: href,
      kind: 'inbound',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.headers(href, body, 'inbound') },
      timeoutMs: this.options.webhookTimeoutMs,
    });
  }

  redeliver(record: OutboundRecord): Promise<OutboundRecord> {
    // A new attempt gets fresh signatures (new jti / timestamps), like a real retry.
    const headers = {
      ...record.requestHeaders,
      ...this.headers(record.url, record.requestBody, record.kind === 'status_report' ? 'status_report' : 'inbound'),
    };
    return this.state.webhooks.send({
      method: record.method,
      url: record.url,
      kind: record.kind,
      headers,
      timeoutMs: this.options.webhookTimeoutMs,
      ...(record.method === 'POST' ? { body: record.requestBody } : {}),
    });
  }
}

/**
 * The report URL with its query written the way the provider writes it: brackets in names and the
 * time's `:` and `+` left as they are, so `statusDatetime=2023-07-28T17:57:12+00:00` arrives with a
 * `+` that a query decoder reads as a space. The signature hashes this exact URL.
 */
function withQuery(target: string, q: Array<[string, string]>): string {
  const url = new URL(target);
  const raw = (v: string) => encodeURIComponent(v).replace(/%5B/g, '[').replace(/%5D/g, ']');
  const own = q.map(([k, v]) => `${raw(k)}=${k === 'statusDatetime' ? v : raw(v)}`).join('&');
  const existing = url.search.slice(1);
  url.search = '';
  return `${url.href}?${existing === '' ? own : `${existing}&${own}`}`;
}

export function inboundFields(id: string, originator: string, recipient: string, body: string, nowMs: number, reference?: string): Record<string, string> {
  const created = rfc3339(nowMs);
  return {
    id,
    recipient,
    originator,
    body,
    createdDatetime: created,
    receiver: recipient,
    sender: originator,
    message: body,
    date: String(Math.floor(nowMs / 1000)),
    date_utc: String(Math.floor(nowMs / 1000)),
    reference: reference ?? randomHex(8),
  };
}

/** The short-code form of an inbound SMS: `mid`, `shortcode`, `message`, `receive_datetime` (YYYYMMDDhhmmss, UTC). */
export function shortcodeFields(id: string, originator: string, shortcode: string, body: string, nowMs: number): Record<string, string> {
  const compact = new Date(nowMs)
    .toISOString()
    .replace(/\.\d{3}Z$/, '')
    .replace(/[-:T]/g, '');
  return { mid: id, shortcode, originator, message: body, receive_datetime: compact };
}
