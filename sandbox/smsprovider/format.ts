import type { JsonRecord } from '../shared/values.js';
import type { SpMessage, SpRecipient } from './state.js';

// Wire shapes of messages and timestamps.

/** RFC 3339 without fractions and with an explicit +00:00 offset, as the provider writes it. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

export function recipientView(r: SpRecipient): JsonRecord {
  return {
    recipient: r.recipient,
    status: r.status,
    statusDatetime: rfc3339(r.statusDatetime),
    statusReason: r.statusReason,
    statusErrorCode: r.statusErrorCode,
    recipientCountry: null,
    recipientCountryPrefix: null,
    recipientOperator: null,
    messageLength: null,
    messagePartCount: r.messagePartCount,
    price: r.price,
  };
}

export function messageView(m: SpMessage, origin: string): JsonRecord {
  const count = (s: string[]): number => m.recipients.filter((r) => s.includes(r.status)).length;
  return {
    id: m.id,
    href: `${origin}/messages/${m.id}`,
    direction: m.direction,
    type: m.type,
    originator: m.originator,
    body: m.body,
    reference: m.reference,
    validity: m.validity,
    gateway: m.gateway,
    typeDetails: m.typeDetails,
    datacoding: m.datacoding,
    mclass: m.mclass,
    scheduledDatetime: m.scheduledDatetime,
    createdDatetime: rfc3339(m.createdAt),
    recipients: {
      totalCount: m.recipients.length,
      totalSentCount: count(['sent', 'buffered']),
      totalDeliveredCount: count(['delivered']),
      totalDeliveryFailedCount: count(['delivery_failed', 'expired']),
      items: m.recipients.map(recipientView),
    },
  };
}
