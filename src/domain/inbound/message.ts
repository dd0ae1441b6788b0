import type { InboundEvent } from '../../connectors/connector.js';
import type { Channel } from '../channels/view.js';
import type { InboundContext, InboundTrace } from './context.js';
import { storeMessageOnce } from './message-storing.js';

/**
 * `message`: a message the contact wrote, stored with its `message_received` event. A reply to a
 * number several channels send from goes to the channel that last sent to its sender (shared-number.ts).
 */
export async function applyMessage(
  ctx: InboundContext,
  called: Channel,
  event: Extract<InboundEvent, { kind: 'message' }>,
  trace: InboundTrace,
): Promise<void> {
  const channel = await ctx.sharedNumber.channelFor(called, { externalId: event.externalId, to: event.to, phoneNumber: event.user.phoneNumber });
  await storeMessageOnce(ctx, channel, event, 'received', trace);
}
