import type { ClaimedJob, NewJob } from './job-queue.js';
import type { Insertable } from 'kysely';
import type { JobsTable } from './schema.js';

/** Row shapes shared by the two job queue implementations. */
export interface ClaimedJobRow {
  id: number | string;
  kind: string;
  account_id: number | string;
  channel_id: number | string;
  message_id: number | string | null;
  payload: string;
  attempts: number | string;
  max_attempts: number | string;
  expires_at: number | string | null;
}

/** The columns a claim returns. */
export const CLAIMED_JOB_COLUMNS = 'id, kind, account_id, channel_id, message_id, payload, attempts, max_attempts, expires_at';

export function toClaimedJobs(rows: readonly ClaimedJobRow[], leaseId: number): ClaimedJob[] {
  return rows
    .map((r) => ({
      id: Number(r.id),
      kind: r.kind,
      accountId: Number(r.account_id),
      channelId: Number(r.channel_id),
      messageId: r.message_id === null ? null : Number(r.message_id),
      payload: r.payload,
      attempts: Number(r.attempts),
      maxAttempts: Number(r.max_attempts),
      expiresAt: r.expires_at === null ? null : Number(r.expires_at),
      leaseId,
    }))
    .sort((a, b) => a.id - b.id);
}

export function jobRow(job: NewJob): Insertable<JobsTable> {
  return {
    id: job.id,
    account_id: job.accountId,
    channel_id: job.channelId,
    message_id: job.messageId,
    kind: job.kind,
    payload: job.payload,
    status: 'pending',
    attempts: 0,
    max_attempts: job.maxAttempts,
    run_at: job.runAt,
    expires_at: job.expiresAt,
    last_error: null,
    created_at: job.createdAt,
    updated_at: job.createdAt,
  };
}

/** Messages of the sweeps, kept on the row. */
export const ORPHANED_ERROR = 'The process running its last attempt ended.';
export const LAPSED_ERROR = 'Its last attempt did not finish in time.';
