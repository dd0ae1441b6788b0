import type { InboundEvent } from '../../connectors/connector.js';
import type { Channel } from '../channels/view.js';
import { eventUnit, writeUnit, type InboundContext, type InboundTrace } from './context.js';
import { channelRef, contactRef } from './refs.js';
import { refreshContact } from './user-profile.js';

/** `opt_in`: the contact opted in (an accepted phone number makes its contact by number); reported once per platform key. */
export async function applyOptIn(ctx: InboundContext, channel: Channel, event: Extract<InboundEvent, { kind: 'opt_in' }>, trace: InboundTrace): Promise<void> {
  const contact = event.optInType === 'phone_number' ? await ctx.contacts.acceptPhone(channel, event.user) : await ctx.contacts.resolve(channel, event.user);
  if (!contact) return;
  await refreshContact({ ...ctx.deps, contacts: ctx.contacts }, channel, contact, event.user);
  const optIn: Record<string, unknown> = { type: event.optInType };
  if (event.payload !== undefined) optIn.payload = event.payload;
  await writeUnit(
    ctx,
    eventUnit(ctx, channel, contact, 'opt_in', { channel: channelRef(channel), contact: contactRef(contact), opt_in: optIn }, event.eventKey),
    trace,
  );
}
