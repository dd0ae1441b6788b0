import type { Store } from '../../store/store.js';
import type { JobKind, JobResult } from '../../queue/jobs-task.js';
import type { ClaimedJob } from '../../store/job-queue.js';
import type { Channel } from '../channels/view.js';
import type { Outbox } from '../events/outbox.js';
import { messageFailedEvent, storedFailure } from '../messages/failed-event.js';
import { TIME_TO_LIVE_JOB_KIND } from './time-to-live-row.js';
import { storedCorrelationId } from '../../lib/correlation.js';

export interface TimeToLiveDeps {
  store: Store;
  outbox: Outbox;
  channels: { find(accountId: number, id: number): Promise<Channel | undefined> };
}

interface Input {
  messageId: number;
  /** The correlation id of the request that sent the message (lib/correlation.ts). */
  correlationId: string | null;
}

/** The stored reason of a message the platform never reported delivered within its time to live. */
const REASON = 'Not delivered within its time to live (the platform reported no delivery).';

/**
 * The service's own check of a message's time to live (types whose definition gives one): a
 * little after it ran out, a message still queued or sent and not delivered fails with code 4
 * and `message_failed`, whether or not the platform reported the expiry. A message delivered,
 * read or failed meanwhile, or deleted, is left as it is; the change is conditional on the
 * message's state, so the platform's report and this check record the failure once.
 */
export function timeToLiveJob(deps: TimeToLiveDeps): JobKind<Input> {
  return {
    kind: TIME_TO_LIVE_JOB_KIND,
    encode: (input) =>
      JSON.stringify(
        input.correlationId ? { message_id: String(input.messageId), correlation_id: input.correlationId } : { message_id: String(input.messageId) },
      ),
    decode(payload) {
      const value = JSON.parse(payload) as { message_id?: unknown; correlation_id?: unknown };
      const messageId = Number(value.message_id);
      if (!Number.isSafeInteger(messageId) || messageId <= 0) throw new Error('no message_id');
      return { messageId, correlationId: storedCorrelationId(value.correlation_id) };
    },
    async handle(input: Input, job: ClaimedJob): Promise<JobResult> {
      const message = await deps.store.messages.forSend(job.accountId, input.messageId);
      if (!message || (message.status !== 'queued' && message.status !== 'sent')) return { ok: true };
      const channel = await deps.channels.find(job.accountId, message.channel_id);
      if (!channel) return { ok: true };
      const from = message.status as 'queued' | 'sent';
      let wake = false;
      await deps.store.transaction(async (tx) => {
        if (!(await tx.messages.markFailed(job.accountId, message.id, storedFailure(4, REASON), from))) return;
        const contact = { id: message.contact_id, phone_number: message.phone_number, user_ref: message.user_ref };
        const event = { ...messageFailedEvent(channel, contact, message.id, 4), correlationId: input.correlationId };
        wake = (await deps.outbox.append(tx, event)).deliveryId !== null;
      });
      if (wake) deps.outbox.wake();
      return { ok: true };
    },
  };
}
