import { isoTime } from '../../lib/clock.js';
import type { InboundEvent } from '../../connectors/connector.js';
import type { EventInput } from '../events/outbox.js';
import type { Channel } from '../channels/view.js';
import type { InboundContext, InboundTrace } from './context.js';
import { applyReceipt, deliveredEvent } from './receipt.js';
import { channelRef, contactRef } from './refs.js';

/** `read`, a read receipt: `last_read_timestamp` is the platform's watermark: everything delivered before it was read. */
export async function applyRead(ctx: InboundContext, channel: Channel, event: Extract<InboundEvent, { kind: 'read' }>, trace: InboundTrace): Promise<void> {
  await applyReceipt(ctx, channel, event.user, event.at, trace, async (tx, contact, at) => {
    // A platform that names the message read: everything sent up to that message was read.
    const named =
      event.messageExternalId === undefined
        ? undefined
        : await tx.conversation.findByExternalId(channel.accountId, Number(channel.id), 'sent', event.messageExternalId);
    const watermark = named?.sent_at ?? event.watermark;
    const changed = await tx.conversation.markRead(channel.accountId, contact.id, watermark, at);
    if (changed.read === 0) return [];
    const read: EventInput = {
      type: 'messages_read',
      channel,
      contactId: contact.id,
      data: { channel: channelRef(channel), contact: contactRef(contact), last_read_timestamp: isoTime(watermark) },
    };
    // A message read before its delivery was reported is reported delivered first.
    return changed.newlyDelivered.length > 0 ? [deliveredEvent(channel, contact, changed.newlyDelivered, at), read] : [read];
  });
}
