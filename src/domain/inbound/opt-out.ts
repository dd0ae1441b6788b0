import type { InboundEvent } from '../../connectors/connector.js';
import type { Channel } from '../channels/view.js';
import type { InboundContext } from './context.js';

/**
 * `opt_out`: opt-outs come from the asynchronous platforms; storing them (the contact's opt-out) is
 * still to come. Until then such a report is answered 200, so the platform does not retry it, and logged.
 */
export function applyOptOut(ctx: InboundContext, channel: Channel, event: Extract<InboundEvent, { kind: 'opt_out' }>): void {
  ctx.deps.logger?.info(
    { channel: channel.id, kind: event.kind, reason: event.reason },
    `inbound ${event.kind} answered and not stored: this service does not store opt-outs yet`,
  );
}
