import type { Card, Content } from '../../schemas/content.js';
import type { InboundEvent } from '../../connectors/connector.js';
import type { Channel } from '../channels/view.js';
import { eventUnit, writeUnit, type InboundContext, type InboundTrace } from './context.js';
import { channelRef, contactRef } from './refs.js';

/** `postback`: a button was pressed; reported once per platform key of the event. */
export async function applyPostback(
  ctx: InboundContext,
  channel: Channel,
  event: Extract<InboundEvent, { kind: 'postback' }>,
  trace: InboundTrace,
): Promise<void> {
  const contact = await ctx.contacts.resolve(channel, event.user);
  if (!contact) return;
  const payload = event.payload ?? (event.buttonRef ? await buttonPayload(ctx, channel, event.buttonRef) : undefined);
  if (payload === undefined) return;
  await writeUnit(
    ctx,
    eventUnit(ctx, channel, contact, 'postback', { channel: channelRef(channel), contact: contactRef(contact), postback: { payload } }, event.eventKey),
    trace,
  );
}

/** The payload of a button the platform named by its place in a message the service sent. */
async function buttonPayload(ctx: InboundContext, channel: Channel, ref: { messageExternalId: string; index: number }): Promise<string | undefined> {
  const sent = await ctx.deps.store.conversation.findByExternalId(channel.accountId, Number(channel.id), 'sent', ref.messageExternalId);
  if (!sent) return undefined;
  const content = JSON.parse(sent.content) as Content;
  if (content.type !== 'structure') return undefined;
  const cards: Card[] = Array.isArray(content.payload) ? content.payload : [content.payload];
  const button = cards.flatMap((c) => c.buttons ?? [])[ref.index];
  return button?.type === 'postback' ? button.payload : undefined;
}
