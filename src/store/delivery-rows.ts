import type { ClaimedDelivery, DeliveryOutcome } from './delivery-queue.js';

/** Row shapes and batch encodings shared by the two queue implementations. */
export interface ClaimedRow {
  id: number | string;
  event_id: number | string;
  account_id: number | string;
  channel_id: number | string;
  webhook_id: number | string;
  attempts: number | string;
  event_type: string;
  body: string;
  correlation_id: string | null;
}

export function toClaimed(rows: readonly ClaimedRow[]): ClaimedDelivery[] {
  return rows
    .map((r) => ({
      id: Number(r.id),
      eventId: Number(r.event_id),
      accountId: Number(r.account_id),
      channelId: Number(r.channel_id),
      webhookId: Number(r.webhook_id),
      attempts: Number(r.attempts),
      eventType: r.event_type,
      body: r.body,
      correlationId: r.correlation_id,
    }))
    .sort((a, b) => a.id - b.id);
}

/** PostgreSQL text cannot hold NUL; a receiver's answer might. */
function clean(text: string | null): string | null {
  return text === null ? null : text.replaceAll('\u0000', '\uFFFD');
}

/** [id, delivery_id, attempted_at, url, status_code, duration_ms, response_excerpt, error] */
export function attemptTuples(outcomes: readonly DeliveryOutcome[]): unknown[][] {
  const out: unknown[][] = [];
  for (const o of outcomes) {
    const a = o.attempt;
    if (a) out.push([a.id, o.id, a.attemptedAt, clean(a.url), a.statusCode, Math.round(a.durationMs), clean(a.responseExcerpt), clean(a.error)]);
  }
  return out;
}

/** [id, lease_id, status, attempts, next_attempt_at, last_status_code, last_error, updated_at] */
export function outcomeTuples(outcomes: readonly DeliveryOutcome[]): unknown[][] {
  return outcomes.map((o) => [o.id, o.leaseId, o.status, o.attempts, o.nextAttemptAt, o.lastStatusCode, clean(o.lastError), o.updatedAt]);
}
