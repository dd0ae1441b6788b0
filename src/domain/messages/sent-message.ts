import type { MessageRow } from '../../store/repos/messages.js';
import type { ContactRow } from '../../store/repos/contacts.js';
import type { WriteUnit } from '../../store/write-unit.js';
import type { Content, MessageView, Metadata } from '../../schemas/content.js';
import type { SentParts } from '../../channel-types/index.js';
import type { PlatformFailure } from '../../connectors/connector.js';
import type { Outbox } from '../events/outbox.js';
import type { Channel } from '../channels/view.js';
import { eventMessageData, messageView } from './view.js';

/** What became of a sent message before it is stored: queued for a send job, sent (by the platform, or a test channel's), or refused by the platform. */
export type SendOutcome = { status: 'queued' | 'sent'; externalId: string | null } | { status: 'failed'; failure: PlatformFailure };

/** A message of Send Message, checked and (on a direct path) already handed to its platform. */
export interface SentMessage {
  id: number;
  channel: Channel;
  /** The contact; `isNew`: not committed yet, so the unit inserts it (insert-or-ignore). */
  contact: { row: ContactRow; isNew: boolean };
  content: Content;
  metadata: Metadata | undefined;
  /** The parts the platform sends the content in, for types that count them (SMS). */
  parts: SentParts | undefined;
  outcome: SendOutcome;
  idempotencyKey: string | null;
  requestHash: string | null;
  correlationId: string | null;
  now: number;
}

/**
 * The message row of Send Message, its view (the answer and the event's `message`) and the write
 * unit storing it: the contact if new, the message and, unless the platform refused it, its
 * `message_echo` event with the webhook delivery when the channel has a webhook (Outbox.build), so
 * all land in one commit. A failed send is kept with its reason but not echoed. The send job of a
 * queued message is added by the caller.
 */
export function sentMessageUnit(outbox: Pick<Outbox, 'build'>, m: SentMessage): { row: MessageRow; view: MessageView; unit: WriteUnit } {
  const { channel, contact, outcome } = m;
  const failure = outcome.status === 'failed' ? outcome.failure : null;
  const view = messageView({
    id: m.id,
    direction: 'sent',
    sentAt: m.now,
    deliveredAt: null,
    readAt: null,
    channel: { id: channel.id, type: channel.type },
    contact: { id: contact.row.id, phoneNumber: contact.row.phone_number, userRef: contact.row.user_ref, email: contact.row.email },
    content: m.content,
    metadata: m.metadata,
  });
  const row: MessageRow = {
    id: m.id,
    account_id: channel.accountId,
    channel_id: Number(channel.id),
    contact_id: contact.row.id,
    direction: 'sent',
    content: JSON.stringify(m.content),
    metadata: m.metadata === undefined ? null : JSON.stringify(m.metadata),
    status: outcome.status,
    external_id: outcome.status === 'failed' ? null : outcome.externalId,
    error: failure ? JSON.stringify({ code: failure.code, message: failure.message }) : null,
    idempotency_key: m.idempotencyKey,
    request_hash: m.requestHash,
    sent_at: m.now,
    delivered_at: null,
    read_at: null,
    created_at: m.now,
    part_count: m.parts ? m.parts.count : null,
    part_encoding: m.parts ? m.parts.encoding : null,
    correlation_id: m.correlationId,
  };
  const unit: WriteUnit = { insert: { messages: [row] } };
  if (contact.isNew) unit.ensure = { contacts: [contact.row] };
  if (!failure) {
    const { event, delivery } = outbox.build({
      type: 'message_echo',
      channel,
      contactId: contact.row.id,
      messageId: m.id,
      data: eventMessageData(view, channel.name),
      correlationId: m.correlationId,
    });
    if (event) unit.insert.events = [event];
    if (delivery) unit.insert.deliveries = [delivery];
  }
  return { row, view, unit };
}
