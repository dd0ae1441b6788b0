import type { Store } from '../../store/store.js';
import type { FailoverStepRow } from '../../store/repos/failovers.js';
import type { FailoversTable } from '../../store/schema.js';
import type { JobKind, JobResult } from '../../queue/jobs-task.js';
import type { ClaimedJob } from '../../store/job-queue.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { ConnectorRegistry } from '../../connectors/connector.js';
import type { Outbox } from '../events/outbox.js';
import type { Channel } from '../channels/view.js';
import type { ContactService } from '../contacts/service.js';
import type { DomainSignals } from '../signals.js';
import { parseAddress } from '../messages/addressing.js';
import { checkCapabilities } from '../messages/channel-rules.js';
import { sendingPath } from '../messages/sending.js';
import { sentMessageUnit } from '../messages/sent-message.js';
import { messageFailedEvent, storedFailure } from '../messages/failed-event.js';
import { sendJobRows } from '../sending/send-job-row.js';
import { deadlineOf, decodePlan, FAILOVER_JOB_KIND, FAILURE_WATCH_MS, linkedMetadata, RECHECK_MS, type PlannedStep } from './plan.js';

export interface FailoverJobDeps {
  store: Store;
  ids: IdGenerator;
  clock: Clock;
  outbox: Outbox;
  connectors: ConnectorRegistry;
  channels: { find(accountId: number, id: number): Promise<Channel | undefined> };
  contacts: Pick<ContactService, 'resolveForSend' | 'confirm'>;
  defaultPhoneRegion: string | undefined;
  signals: DomainSignals;
  logger: Logger;
}

interface Input {
  failoverId: number;
}

/** The wait after a look at the chain that threw (a store error that may pass). */
const RETRY_MS = 2000;

const CANCELLED_REASON = 'Cancelled: an earlier step of its failover chain was delivered before it went out.';

const delivered = (s: FailoverStepRow) => s.delivered_at !== null || s.read_at !== null;

/**
 * The `failover` job: one per chain, the chain's durable timer and the only thing that moves it.
 * It runs when its step's deadline comes and whenever a report on a step pokes it, and decides
 * from the stored rows alone: the step delivered (or read) stops the chain; failed, or past its
 * deadline, starts the next step. The move is a compare-and-set on the chain's step written with
 * the next step's message, its echo and its send job in one transaction, so of two workers (or a
 * worker killed and its job run again) only one starts a step, and a report arriving meanwhile
 * starts nothing further.
 */
export function failoverJob(deps: FailoverJobDeps): JobKind<Input> {
  const { store, clock } = deps;

  /**
   * Stops the chain at its current step, ended `delivered` or `read`; after an earlier step's late
   * delivery, the current step is `cancelled` when it has not gone out (nothing is sent), else
   * (null) it is left to its own reports.
   */
  async function stop(chain: FailoversTable, current: FailoverStepRow, outcome: 'delivered' | 'read' | 'cancelled' | null): Promise<void> {
    const now = clock.now();
    const channel = outcome === 'cancelled' ? await deps.channels.find(chain.account_id, current.channel_id) : undefined;
    let wake = false;
    await store.transaction(async (tx) => {
      if (!(await tx.failovers.end(chain.id, chain.step, now))) return;
      if (outcome === null) return;
      if (outcome !== 'cancelled') {
        await tx.failovers.endStep(current.message_id, outcome, now);
        return;
      }
      if (!channel || !(await tx.messages.markFailed(chain.account_id, current.message_id, storedFailure(1, CANCELLED_REASON), 'queued'))) return;
      await tx.failovers.endStep(current.message_id, 'cancelled', now);
      const contact = await tx.contacts.find(chain.account_id, current.channel_id, current.contact_id);
      if (!contact) return;
      wake = (await deps.outbox.append(tx, messageFailedEvent(channel, contact, current.message_id, 1))).deliveryId !== null;
    });
    if (wake) deps.outbox.wake();
  }

  /** Ends the chain without a next step (its channel or contact gone, or no longer able to carry it). */
  async function giveUp(chain: FailoversTable, why: string): Promise<JobResult> {
    deps.logger.warn({ failoverId: String(chain.id), step: chain.step + 1, why }, 'failover step not started');
    await store.failovers.end(chain.id, chain.step, clock.now());
    return { ok: true };
  }

  /** Starts the next step: its message, echo and send job, with the chain's move, in one transaction. */
  async function moveOn(chain: FailoversTable, current: FailoverStepRow, plan: PlannedStep[], reason: string): Promise<JobResult> {
    const index = chain.step + 1;
    const step = plan[chain.step]!;
    const last = index === plan.length;
    const channel = await deps.channels.find(chain.account_id, Number(step.channel_id));
    if (!channel) return giveUp(chain, 'its channel is gone');
    const path = sendingPath(channel, deps.connectors);
    if (path !== 'queued' && path !== 'test') return giveUp(chain, `its channel cannot send from the queue (${path})`);
    let parts;
    let contact;
    try {
      parts = checkCapabilities(channel.type, step.content, step.metadata ?? undefined);
      contact = await deps.contacts.resolveForSend(channel, parseAddress(channel.type, step.contact, deps.defaultPhoneRegion));
    } catch (error) {
      return giveUp(chain, error instanceof Error ? error.message : String(error));
    }
    const id = deps.ids.nextNumber();
    const now = clock.now();
    const metadata = linkedMetadata(step.metadata, chain.id, index);
    const first = await store.messages.find(chain.account_id, chain.id);
    const correlationId = first?.correlation_id ?? null;
    const outcome = { status: path === 'queued' ? ('queued' as const) : ('sent' as const), externalId: null };
    const sent = { id, channel, contact, content: step.content, metadata, parts, outcome, idempotencyKey: null, requestHash: null, correlationId, now };
    const { view, unit } = sentMessageUnit(deps.outbox, sent);
    if (path === 'queued') {
      const job = {
        id: deps.ids.nextNumber(),
        accountId: chain.account_id,
        channelId: Number(channel.id),
        channelType: channel.type,
        channelConfig: channel.config,
        messageId: id,
        contactId: contact.row.id,
        metadata,
        correlationId,
      };
      unit.insert.jobs = sendJobRows(job, now, () => deps.ids.nextNumber());
    }
    const deadline = last ? null : deadlineOf(plan[index], now);
    unit.insert.failover_steps = [
      {
        message_id: id,
        failover_id: chain.id,
        step: index,
        channel_id: Number(channel.id),
        contact_id: contact.row.id,
        started_at: now,
        deadline_at: deadline,
        ended_at: null,
        outcome: null,
      },
    ];
    const moved = await store.transaction(async (tx) => {
      if (!(await tx.failovers.advance(chain.id, chain.step, index, now))) return false;
      await tx.failovers.endStep(current.message_id, reason, now);
      await tx.failovers.insertUnit(unit);
      return true;
    });
    if (!moved) return { ok: true, waitMs: 0 };
    deps.contacts.confirm(contact);
    if (unit.insert.deliveries) deps.outbox.wake();
    if (path === 'queued') deps.signals.emit('jobsDue');
    deps.signals.emit('messageStored', { channel, contactId: String(contact.row.id), message: view });
    return { ok: true, waitMs: last ? 1000 : waitFor(deadline, now, now) };
  }

  function waitFor(deadline: number | null, now: number, startedAt: number): number {
    const until = deadline ?? startedAt + FAILURE_WATCH_MS;
    return Math.max(0, Math.min(until - now, RECHECK_MS));
  }

  return {
    kind: FAILOVER_JOB_KIND,
    // Every look at a chain counts as an attempt, so the default back-off (doubling with attempts)
    // would put a chain that hit a passing store error off for an hour: it looks again soon.
    retryDelayMs: () => RETRY_MS,
    encode: (input) => JSON.stringify({ failover_id: String(input.failoverId) }),
    decode(payload) {
      const failoverId = Number((JSON.parse(payload) as { failover_id?: unknown }).failover_id);
      if (!Number.isSafeInteger(failoverId) || failoverId <= 0) throw new Error('no failover_id');
      return { failoverId };
    },
    async handle(input: Input, job: ClaimedJob): Promise<JobResult> {
      const chain = await store.failovers.find(job.accountId, input.failoverId);
      if (!chain || chain.state !== 'running') return { ok: true };
      const steps = await store.failovers.steps(chain.id);
      const current = steps.find((s) => s.step === chain.step);
      const plan = decodePlan(chain.plan);
      const next = plan[chain.step];
      if (!current) return giveUp(chain, 'the chain has no such step');
      // An earlier step delivered after all (a late report): nothing further starts.
      if (steps.some((s) => s.step < chain.step && delivered(s))) {
        await stop(chain, current, current.status === 'queued' ? 'cancelled' : null);
        return { ok: true };
      }
      const now = clock.now();
      if (!next) {
        // The last step: watched until it goes out (a late report may still cancel it), then the chain ends.
        if (current.status === 'queued') return { ok: true, waitMs: Math.min(RECHECK_MS, Math.max(1000, now - current.started_at)) };
        await stop(chain, current, null);
        return { ok: true };
      }
      if (next.when === 'not_read' ? current.read_at !== null : delivered(current)) {
        await stop(chain, current, current.read_at !== null ? 'read' : 'delivered');
        return { ok: true };
      }
      if (current.status === 'failed') return moveOn(chain, current, plan, 'failed');
      if (current.deadline_at !== null && now >= current.deadline_at) return moveOn(chain, current, plan, next.when);
      if (current.deadline_at === null && now >= current.started_at + FAILURE_WATCH_MS) return giveUp(chain, 'no failure reported');
      return { ok: true, waitMs: waitFor(current.deadline_at, now, current.started_at) };
    },
  };
}
