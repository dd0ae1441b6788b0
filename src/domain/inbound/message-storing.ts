import type { ContactRow } from '../../store/repos/contacts.js';
import { capabilitiesOf } from '../../channel-types/index.js';
import type { Content } from '../../schemas/content.js';
import { channelContextOf, type InboundEvent } from '../../connectors/connector.js';
import type { Channel } from '../channels/view.js';
import { writeUnit, type InboundContext, type InboundTrace } from './context.js';
import { neutralContent } from './media.js';
import { incomingMessageUnit } from './received-message.js';

/** A message the platform reports: one the contact wrote (`message`) or one sent from elsewhere (`echo`). */
export type PlatformMessage = Extract<InboundEvent, { kind: 'message' | 'echo' }>;

/**
 * Stores a message or an echo once. The same message reported twice at once (a platform's retry
 * while the first call still runs) is stored, and its text classified, once: the second waits,
 * then finds it stored.
 */
export async function storeMessageOnce(
  ctx: InboundContext,
  channel: Channel,
  event: PlatformMessage,
  direction: 'received' | 'sent',
  trace: InboundTrace,
): Promise<void> {
  const key = `${channel.id}:${direction}:${event.externalId}`;
  for (let earlier = ctx.storing.get(key); earlier; earlier = ctx.storing.get(key)) await earlier.catch(() => undefined);
  const storing = storeMessage(ctx, channel, event, direction, trace);
  ctx.storing.set(key, storing);
  try {
    await storing;
  } finally {
    if (ctx.storing.get(key) === storing) ctx.storing.delete(key);
  }
}

async function storeMessage(ctx: InboundContext, channel: Channel, event: PlatformMessage, direction: 'received' | 'sent', trace: InboundTrace): Promise<void> {
  const { deps } = ctx;
  const contact = await ctx.contacts.resolve(channel, event.user);
  if (!contact) return;
  const channelId = Number(channel.id);
  // A repeated call about a message already stored is answered without fetching its files again.
  if (await deps.store.conversation.findByExternalId(channel.accountId, channelId, direction, event.externalId)) return;
  const media = deps.connectors.role(channel.type, 'media') ?? null;
  const matched =
    direction === 'received' && event.content.type === 'text' && event.content.matchQuickReplies && event.content.quickReplyPayload === undefined
      ? await quickReplyPayload(ctx, contact, event.content.text, capabilitiesOf(channel.type).quickReplies === 'text')
      : undefined;
  const content = await neutralContent(
    event.content,
    matched,
    { media, channel: channelContextOf(channel), files: deps.files, accountId: channel.accountId, channelId, contactId: contact.id },
    (message) => deps.logger?.warn({ channel: channel.id, message: event.externalId }, `attachment kept at the platform's URL: ${message}`),
  );
  const nlp = direction === 'received' ? await deps.classify?.(channelId, content) : undefined;
  const now = deps.clock.now();
  const metadata =
    event.kind === 'echo' ? (event.platformMetadata !== undefined ? { platform_metadata: event.platformMetadata } : null) : (event.metadata ?? null);
  const { unit } = incomingMessageUnit(deps.outbox, {
    id: deps.ids.nextNumber(),
    channel,
    contact: { id: contact.id, phoneNumber: contact.phone_number, userRef: contact.user_ref, email: contact.email },
    direction,
    content,
    metadata,
    externalId: event.externalId,
    sentAt: event.at ?? now,
    now,
    nlp,
  });
  await writeUnit(ctx, unit, trace);
}

/**
 * The payload of a quick reply whose title the user sent as text (platforms that deliver only the
 * title), or, where quick replies go out as numbered choices in the text (SMS), its number.
 */
async function quickReplyPayload(ctx: InboundContext, contact: ContactRow, text: string, numbered: boolean): Promise<string | undefined> {
  const last = await ctx.deps.store.conversation.lastSent(contact.account_id, contact.id);
  if (!last) return undefined;
  const content = JSON.parse(last.content) as Content;
  const choices = (content.quick_replies ?? []).flatMap((q) => (q.type === 'text' ? [q] : []));
  const number = numbered ? /^\s*(\d{1,2})\s*[.)]?\s*$/.exec(text) : null;
  const match = choices.find((q) => q.title === text) ?? (number ? choices[Number(number[1]) - 1] : undefined);
  return match?.payload;
}
