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

/** A due row as the claim's scan sees it: [id, channel_id, account_id], in claim order. */
export type ScannedRow = readonly [id: number, channelId: number, accountId: number];

/**
 * The rows a claim takes of those its scan saw (in order): at most `perChannel` of each channel,
 * at most `perAccount` of each account unless every row seen is of one account, `limit` in all.
 * The same rule the PostgreSQL claim states in SQL with window functions.
 */
export function pickFair(rows: readonly ScannedRow[], r: { perChannel: number; perAccount: number; limit: number }): number[] {
  const picked: number[] = [];
  if (rows.length === 0) return picked;
  const firstAccount = rows[0]![2];
  const alone = rows.every((row) => row[2] === firstAccount);
  const perChannel = new Map<number, number>();
  const perAccount = new Map<number, number>();
  for (const [id, channelId, accountId] of rows) {
    const ofChannel = (perChannel.get(channelId) ?? 0) + 1;
    const ofAccount = (perAccount.get(accountId) ?? 0) + 1;
    perChannel.set(channelId, ofChannel);
    perAccount.set(accountId, ofAccount);
    if (ofChannel > r.perChannel || (!alone && ofAccount > r.perAccount)) continue;
    picked.push(id);
    if (picked.length >= r.limit) break;
  }
  return picked;
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
