import type { MessagesTable } from '../../store/schema.js';
import { parseId } from '../../lib/ids.js';
import type { InboundEvent } from '../../connectors/connector.js';
import { messageFailedCode } from '../../connectors/failure-codes.js';
import type { EventInput } from '../events/outbox.js';
import type { Channel } from '../channels/view.js';
import { messageFailedEvent, storedFailure } from '../messages/failed-event.js';
import type { InboundContext, InboundTrace } from './context.js';
import { deliveredEvent } from './receipt.js';

/**
 * `status`, a status report: a platform's report on a message the service sent, found by the
 * platform's id of it (or by our reference, for a report that comes before the send's result was
 * recorded): `delivered` sets its `delivered` time and reports `messages_delivered`
 * (delivered_timestamp: when the service got the report, as the specification says for mobile);
 * `failed` and `expired` make it `failed` and report `message_failed` (code 4 for expired, else the
 * type's code of the platform's, 1 on mobile). Each change is conditional on the message's state
 * and written with its event: a repeated or late report (after the message was delivered or
 * failed) changes nothing. `sent` (accepted, buffered) changes nothing either: the message is `sent` already.
 */
export async function applyStatusReport(
  ctx: InboundContext,
  channel: Channel,
  event: Extract<InboundEvent, { kind: 'status' }>,
  trace: InboundTrace,
): Promise<void> {
  const { store, clock, outbox } = ctx.deps;
  const report = event.report;
  if (report.status === 'sent') return;
  const channelId = Number(channel.id);
  const message =
    (await store.conversation.findByExternalId(channel.accountId, channelId, 'sent', report.messageExternalId)) ??
    (await byReference(ctx, channel, report.messageReference));
  const contact = message ? await store.contacts.find(channel.accountId, channelId, message.contact_id) : undefined;
  if (!message || !contact) {
    ctx.deps.logger?.info(
      { channel: channel.id, message: report.messageExternalId, status: report.status },
      'status report of a message this service does not know: ignored',
    );
    return;
  }
  const correlationId = message.correlation_id ?? trace.requestId;
  if (message.correlation_id) trace.messageCorrelationId = message.correlation_id;
  const now = clock.now();
  let wake = false;
  await store.transaction(async (tx) => {
    let input: EventInput | null = null;
    if (report.status === 'delivered') {
      if (await tx.messages.markReportedDelivered(channel.accountId, message.id, now, report.messageExternalId))
        input = deliveredEvent(channel, contact, [message.id], now);
    } else {
      const code = report.status === 'expired' ? 4 : messageFailedCode(channel.type, report.platformCode ?? '');
      const failure = storedFailure(code, report.reason);
      // Reported before the send's result was recorded: failed from `queued`, and the job's `sent` mark then changes nothing.
      const from = message.status === 'queued' ? 'queued' : 'sent';
      if (await tx.messages.markFailed(channel.accountId, message.id, failure, from)) input = messageFailedEvent(channel, contact, message.id, code);
    }
    if (input) wake = (await outbox.append(tx, { ...input, correlationId })).deliveryId !== null;
  });
  if (wake) outbox.wake();
}

/** The channel's sent message a report names by our own id (its reference), when the platform echoes one. */
async function byReference(ctx: InboundContext, channel: Channel, reference: string | undefined): Promise<MessagesTable | undefined> {
  const id = parseId(reference);
  if (id === null) return undefined;
  return ctx.deps.store.conversation.findSentById(channel.accountId, Number(channel.id), id);
}
