import { hmacHex } from '../lib/crypto.js';
import { CORRELATION_HEADER } from '../lib/correlation.js';

/** Header names of a webhook call (documented in docs/webhooks.md). */
export const HEADERS = {
  /** `sha1=<hex HMAC-SHA1 of the body>`, as the specification defines it. */
  signature: 'X-Hub-Signature',
  /** `sha256=<hex HMAC-SHA256 of the body>`, the stronger companion. */
  signature256: 'X-Hub-Signature-256',
  /** The event's id: the same on every try and redelivery, so receivers can drop duplicates. */
  eventId: 'X-Parley-Event-Id',
  eventType: 'X-Parley-Event',
  deliveryId: 'X-Parley-Delivery-Id',
  /** 1 for the first try of a cycle, 2 for the first retry, ... */
  attempt: 'X-Parley-Attempt',
  /** The id of the request or platform call that made the event, as in the service's logs; absent when it has none. */
  correlationId: CORRELATION_HEADER,
} as const;

/** Both signatures of the exact body bytes; the key is the webhook secret as UTF-8. */
export function signatures(body: string | Buffer, secret: string): { sha1: string; sha256: string } {
  const key = Buffer.from(secret, 'utf8');
  return { sha1: `sha1=${hmacHex('sha1', key, body)}`, sha256: `sha256=${hmacHex('sha256', key, body)}` };
}

export interface WebhookCall {
  eventId: number;
  eventType: string;
  deliveryId: number;
  attempt: number;
  body: Buffer;
  secret: string;
  correlationId?: string | null;
}

export function webhookHeaders(call: WebhookCall, userAgent: string): Record<string, string> {
  const { sha1, sha256 } = signatures(call.body, call.secret);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': userAgent,
    [HEADERS.signature]: sha1,
    [HEADERS.signature256]: sha256,
    [HEADERS.eventId]: String(call.eventId),
    [HEADERS.eventType]: call.eventType,
    [HEADERS.deliveryId]: String(call.deliveryId),
    [HEADERS.attempt]: String(call.attempt),
  };
  if (call.correlationId) headers[HEADERS.correlationId] = call.correlationId;
  return headers;
}
