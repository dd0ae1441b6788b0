import type { MessageRow } from '../../store/repos/messages.js';
import type { WriteUnit } from '../../store/write-unit.js';
import type { Content } from '../../schemas/content.js';
import type { NlpField } from '../../schemas/nlp.js';
import type { Outbox } from '../events/outbox.js';
import type { Channel } from '../channels/view.js';
import { eventMessageData, messageView } from '../messages/view.js';

export interface IncomingMessage {
  id: number;
  channel: Channel;
  contact: { id: number | string; phoneNumber: string | null; userRef: string | null; email?: string | null };
  /** `received`: the contact wrote it; `sent`: an echo of a message the page sent elsewhere. */
  direction: 'received' | 'sent';
  content: Content;
  metadata: Record<string, unknown> | null | undefined;
  externalId: string | null;
  sentAt: number;
  now: number;
  /** A received text's NLP result, when its channel's engine answered in time. */
  nlp?: NlpField;
}

/**
 * The message row of a message that arrived from the contact's side (a platform callback or the
 * web chat) and the write unit storing it with its `message_received` (or `message_echo`) event,
 * so message and event land in one commit.
 */
export function incomingMessageUnit(outbox: Outbox, m: IncomingMessage): { row: MessageRow; unit: WriteUnit } {
  const row: MessageRow = {
    id: m.id,
    account_id: m.channel.accountId,
    channel_id: Number(m.channel.id),
    contact_id: Number(m.contact.id),
    direction: m.direction,
    content: JSON.stringify(m.content),
    metadata: m.metadata ? JSON.stringify(m.metadata) : null,
    status: m.direction,
    external_id: m.externalId,
    error: null,
    idempotency_key: null,
    request_hash: null,
    sent_at: m.sentAt,
    delivered_at: null,
    read_at: null,
    created_at: m.now,
  };
  if (m.nlp) row.nlp = JSON.stringify(m.nlp);
  const view = messageView({
    id: m.id,
    direction: m.direction,
    sentAt: m.sentAt,
    deliveredAt: null,
    readAt: null,
    channel: { id: m.channel.id, type: m.channel.type },
    contact: m.contact,
    content: m.content,
    metadata: m.metadata,
    nlp: m.nlp,
  });
  const { event, delivery } = outbox.build({
    type: m.direction === 'received' ? 'message_received' : 'message_echo',
    channel: m.channel,
    contactId: m.contact.id,
    messageId: m.id,
    data: eventMessageData(view, m.channel.name),
  });
  const unit: WriteUnit = { insert: { messages: [row] } };
  if (event) unit.insert.events = [event];
  if (delivery) unit.insert.deliveries = [delivery];
  return { row, unit };
}
