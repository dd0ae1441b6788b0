import type { InboundEvent } from '../../connectors/connector.js';
import type { Channel } from '../channels/view.js';
import type { InboundContext, InboundTrace } from './context.js';
import { applyReceipt, deliveredEvent } from './receipt.js';

/**
 * `delivered`, a delivery receipt: the messages named, and every one sent up to the watermark, are
 * marked delivered and reported in one `messages_delivered`. `delivered_timestamp`: the time the
 * platform gives for the delivery, else the time the callback arrived.
 */
export async function applyDelivered(
  ctx: InboundContext,
  channel: Channel,
  event: Extract<InboundEvent, { kind: 'delivered' }>,
  trace: InboundTrace,
): Promise<void> {
  await applyReceipt(ctx, channel, event.user, event.at, trace, async (tx, contact, at) => {
    const ids = await tx.conversation.markDelivered(channel.accountId, contact.id, event.messageIds, event.watermark, at);
    return ids.length === 0 ? [] : [deliveredEvent(channel, contact, ids, at)];
  });
}
