import type { Repos } from '../../store/store.js';
import type { ContactRow } from '../../store/repos/contacts.js';
import { isoTime } from '../../lib/clock.js';
import type { InboundUser } from '../../connectors/connector.js';
import type { EventInput } from '../events/outbox.js';
import type { Channel } from '../channels/view.js';
import type { InboundContext, InboundTrace } from './context.js';
import { channelRef, contactRef } from './refs.js';

/**
 * A delivery or read receipt for a contact the service knows (others are ignored): `work` marks
 * the messages at `at` (the platform's time, else now) and answers the events that report it,
 * appended in the same transaction; the webhook workers are woken when one has a webhook.
 */
export async function applyReceipt(
  ctx: InboundContext,
  channel: Channel,
  user: InboundUser,
  platformAt: number | null,
  trace: InboundTrace,
  work: (tx: Repos, contact: ContactRow, at: number) => Promise<EventInput[]>,
): Promise<void> {
  const { store, clock, outbox } = ctx.deps;
  const contact = await ctx.contacts.existing(channel, user);
  if (!contact) return;
  const at = platformAt ?? clock.now();
  let wake = false;
  await store.transaction(async (tx) => {
    for (const input of await work(tx, contact, at)) {
      const appended = await outbox.append(tx, { ...input, correlationId: trace.requestId });
      wake ||= appended.deliveryId !== null;
    }
  });
  if (wake) outbox.wake();
}

/** `messages_delivered` for the messages `ids` of a contact, delivered at `at`. */
export function deliveredEvent(channel: Channel, contact: ContactRow, ids: number[], at: number): EventInput {
  return {
    type: 'messages_delivered',
    channel,
    contactId: contact.id,
    data: { channel: channelRef(channel), contact: contactRef(contact), messages: ids.map((id) => ({ id: String(id) })), delivered_timestamp: isoTime(at) },
  };
}
