import type { ChannelType } from '../../schemas/channel-types.js';
import type { Content, Metadata, SendMessageBody } from '../../schemas/content.js';
import type { FailoverCondition } from '../../schemas/failover.js';

/** The job kind that moves a chain on (store/repos/failovers.ts pokes it by this name). */
export const FAILOVER_JOB_KIND = 'failover';

/** One step after the first as Send Message checked it, stored in the chain's `plan` (JSON). */
export interface PlannedStep {
  channel_id: string;
  channel_type: ChannelType;
  /** What of the step before moves on to this one, and within how many ms (not_delivered, not_read). */
  when: FailoverCondition;
  within_ms: number | null;
  /** How the contact is found or made on this step's channel (a Send Message contact). */
  contact: SendMessageBody['contact'];
  content: Content;
  metadata: Metadata | null;
}

/** The link each step's message carries in its metadata: the chain's first message and the step. */
export interface FailoverLinkData {
  message_id: string;
  step: number;
}

/** How long a step whose next step waits only for a failure is watched: then the chain ends (the message went out, no failure came). */
export const FAILURE_WATCH_MS = 48 * 3_600_000;

/** How often a running chain is looked at even when no report pokes it (a report racing the job's own run). */
export const RECHECK_MS = 30_000;

export function decodePlan(plan: string): PlannedStep[] {
  return JSON.parse(plan) as PlannedStep[];
}

/** When the step started at `startedAt` moves on unless its next step's condition is met; null: only a failure moves on. */
export function deadlineOf(next: PlannedStep | undefined, startedAt: number): number | null {
  if (!next || next.within_ms === null) return null;
  return startedAt + next.within_ms;
}

/** The metadata of a step's message: its own, with the link to the chain. */
export function linkedMetadata(metadata: Metadata | null | undefined, firstId: number, step: number): Metadata {
  const link: FailoverLinkData = { message_id: String(firstId), step };
  return { ...(metadata ?? {}), failover: link };
}

/** The failover job's row (one per chain, on its first message), due at `runAt`. */
export function failoverJobRow(job: { id: number; accountId: number; channelId: number; failoverId: number }, runAt: number, now: number) {
  return {
    id: job.id,
    account_id: job.accountId,
    channel_id: job.channelId,
    message_id: job.failoverId,
    kind: FAILOVER_JOB_KIND,
    payload: JSON.stringify({ failover_id: String(job.failoverId) }),
    status: 'pending',
    attempts: 0,
    // Each look at the chain is an attempt: a chain is watched for days.
    max_attempts: 1_000_000,
    run_at: runAt,
    expires_at: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}
