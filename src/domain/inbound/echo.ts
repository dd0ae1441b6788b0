import type { InboundEvent } from '../../connectors/connector.js';
import type { Channel } from '../channels/view.js';
import type { InboundContext, InboundTrace } from './context.js';
import { storeMessageOnce } from './message-storing.js';

/** `echo`: a message someone else sent the contact from the platform, stored as sent with its `message_echo` event. */
export async function applyEcho(ctx: InboundContext, channel: Channel, event: Extract<InboundEvent, { kind: 'echo' }>, trace: InboundTrace): Promise<void> {
  await storeMessageOnce(ctx, channel, event, 'sent', trace);
}
