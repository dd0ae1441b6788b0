import type { WriteUnit } from '../../store/write-unit.js';

/**
 * The `kind` of the check of a message's time to live, for types whose messages have one: one per
 * such message, due a little after the time to live ran out. Its stored name is older than this
 * module's and stays (rows of it may be waiting).
 */
export const TIME_TO_LIVE_JOB_KIND = 'delivery_deadline';

/**
 * How long after the time to live the service waits for the platform's own report (its
 * `expired`, or a late `delivered`) before it fails the message itself.
 */
export const TIME_TO_LIVE_GRACE_MS = 60_000;

/** Tries of the check (a store that fails it now and then). */
const DEADLINE_MAX_ATTEMPTS = 10;

/** The check's row, due `TIME_TO_LIVE_GRACE_MS` after the message's time to live ends at `expiresAt`. */
export function timeToLiveJobRow(
  job: { id: number; accountId: number; channelId: number; messageId: number; correlationId?: string | null },
  expiresAt: number,
  now: number,
): NonNullable<WriteUnit['insert']['jobs']>[number] {
  return {
    id: job.id,
    account_id: job.accountId,
    channel_id: job.channelId,
    message_id: job.messageId,
    kind: TIME_TO_LIVE_JOB_KIND,
    // The send request's correlation id, for the `message_failed` the check may write.
    payload: JSON.stringify(
      job.correlationId ? { message_id: String(job.messageId), correlation_id: job.correlationId } : { message_id: String(job.messageId) },
    ),
    status: 'pending',
    attempts: 0,
    max_attempts: DEADLINE_MAX_ATTEMPTS,
    run_at: expiresAt + TIME_TO_LIVE_GRACE_MS,
    expires_at: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}
