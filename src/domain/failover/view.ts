import { isoTime } from '../../lib/clock.js';
import type { ChannelType } from '../../schemas/channel-types.js';
import type { FailoverCondition, FailoverStepView, FailoverViewData } from '../../schemas/failover.js';
import type { FailoverStepRow } from '../../store/repos/failovers.js';
import type { FailoversTable } from '../../store/schema.js';
import { decodePlan } from './plan.js';

type StepState = FailoverStepView['state'];

const MOVED_ON: ReadonlySet<string> = new Set<FailoverCondition>(['failed', 'not_delivered', 'not_read']);

/** A started step's state: its message's, or `cancelled` when an earlier step's late delivery stopped it before it went out. */
function stateOf(step: Pick<FailoverStepRow, 'status' | 'delivered_at' | 'read_at' | 'outcome'>): StepState {
  if (step.read_at !== null) return 'read';
  if (step.delivered_at !== null) return 'delivered';
  if (step.status === 'failed') return step.outcome === 'cancelled' ? 'cancelled' : 'failed';
  return step.status === 'queued' ? 'pending' : 'sent';
}

/**
 * The chain as Send Message and Get Message show it: every step, started or not, and the outcome
 * of the whole attempt, read from the steps' messages (a late report of an earlier step counts).
 */
export function failoverView(chain: FailoversTable, started: readonly FailoverStepRow[]): FailoverViewData {
  const plan = decodePlan(chain.plan);
  const first = started.find((s) => s.step === 0);
  const steps: FailoverStepView[] = [];
  const total = plan.length + 1;
  for (let i = 0; i < total; i++) {
    const row = started.find((s) => s.step === i);
    const planned = i === 0 ? undefined : plan[i - 1];
    const channel = row
      ? { id: String(row.channel_id), type: row.channel_type as ChannelType }
      : { id: planned?.channel_id ?? String(first?.channel_id ?? ''), type: planned?.channel_type ?? (first?.channel_type as ChannelType) };
    const view: FailoverStepView = {
      step: i,
      channel,
      message_id: row ? String(row.message_id) : null,
      state: row ? stateOf(row) : chain.state === 'running' ? 'waiting' : 'skipped',
      started: row ? isoTime(row.started_at) : null,
      ended: row?.ended_at != null ? isoTime(row.ended_at) : null,
      moved_on: row?.outcome != null && MOVED_ON.has(row.outcome) ? (row.outcome as FailoverCondition) : null,
    };
    if (planned) view.when = planned.within_ms === null ? { condition: planned.when } : { condition: planned.when, within: planned.within_ms / 1000 };
    steps.push(view);
  }
  return { message_id: String(chain.id), outcome: outcomeOf(chain, steps), steps };
}

function outcomeOf(chain: FailoversTable, steps: readonly FailoverStepView[]): FailoverViewData['outcome'] {
  if (steps.some((s) => s.state === 'read')) return 'read';
  if (steps.some((s) => s.state === 'delivered')) return 'delivered';
  // Under way while a step may still start; on its last step, the chain's outcome is that step's.
  if (chain.state === 'running' && steps.some((s) => s.message_id === null)) return 'pending';
  const last = [...steps].reverse().find((s) => s.message_id !== null);
  if (!last || last.state === 'failed' || last.state === 'cancelled') return 'failed';
  return last.state === 'pending' ? 'pending' : 'sent';
}
