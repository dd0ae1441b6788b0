import type { WriteUnit } from '../../store/write-unit.js';
import type { FailoverStepRow } from '../../store/repos/failovers.js';
import type { FailoversTable } from '../../store/schema.js';
import type { FailoverViewData } from '../../schemas/failover.js';
import { deadlineOf, failoverJobRow, RECHECK_MS, type PlannedStep } from './plan.js';
import { failoverView } from './view.js';

/** The first message of a chain as Send Message stores it. */
export interface ChainStart {
  messageId: number;
  accountId: number;
  channel: { id: string; type: string };
  contactId: number;
  /** The first message's stored status (`queued`, `sent`, or `failed` when a synchronous platform refused it). */
  status: string;
  plan: PlannedStep[];
  jobId: number;
  now: number;
}

/**
 * The rows a chain starts with, added to the first message's write unit (one commit): the
 * chain, its first step, and its job, due when the first step's condition runs out (at once when
 * the first send failed already).
 */
export function addChainStart(unit: WriteUnit, start: ChainStart): FailoverViewData {
  const { messageId, now } = start;
  const chain: FailoversTable = {
    id: messageId,
    account_id: start.accountId,
    step: 0,
    state: 'running',
    plan: JSON.stringify(start.plan),
    created_at: now,
    updated_at: now,
  };
  const deadline = deadlineOf(start.plan[0], now);
  const step = {
    message_id: messageId,
    failover_id: messageId,
    step: 0,
    channel_id: Number(start.channel.id),
    contact_id: start.contactId,
    started_at: now,
    deadline_at: deadline,
    ended_at: null,
    outcome: null,
  };
  unit.insert.failovers = [chain];
  unit.insert.failover_steps = [step];
  const runAt = start.status === 'failed' ? now : (deadline ?? now + RECHECK_MS);
  unit.insert.jobs = [
    ...(unit.insert.jobs ?? []),
    failoverJobRow({ id: start.jobId, accountId: start.accountId, channelId: Number(start.channel.id), failoverId: messageId }, runAt, now),
  ];
  const row: FailoverStepRow = { ...step, channel_type: start.channel.type, status: start.status, delivered_at: null, read_at: null, error: null };
  return failoverView(chain, [row]);
}
