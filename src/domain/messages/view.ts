import { isoTime } from '../../lib/clock.js';
import type { ChannelType } from '../../schemas/channel-types.js';
import type { Content, MessageView } from '../../schemas/content.js';
import type { NlpField } from '../../schemas/nlp.js';
import type { MessageWithRefs } from '../../store/repos/messages.js';

export interface MessageParts {
  id: number;
  direction: 'sent' | 'received';
  sentAt: number;
  deliveredAt: number | null;
  readAt: number | null;
  channel: { id: string; type: ChannelType };
  contact: { id: number | string; phoneNumber: string | null; userRef: string | null; email?: string | null };
  content: Content;
  metadata: Record<string, unknown> | null | undefined;
  /** A received text's NLP result. */
  nlp?: NlpField | null;
}

/** The message shape of contract.md §3, in its documented key order. */
export function messageView(p: MessageParts): MessageView {
  const contact: MessageView['contact'] = { id: String(p.contact.id) };
  if (p.contact.phoneNumber) contact.phone_number = p.contact.phoneNumber;
  if (p.contact.userRef) contact.user_ref = p.contact.userRef;
  if (p.contact.email) contact.email = p.contact.email;
  const view: MessageView = {
    id: String(p.id),
    direction: p.direction,
    sent: isoTime(p.sentAt),
    delivered: p.deliveredAt === null ? null : isoTime(p.deliveredAt),
    read: p.readAt === null ? null : isoTime(p.readAt),
    channel: { id: p.channel.id, type: p.channel.type },
    contact,
    content: p.content as MessageView['content'],
  };
  if (p.metadata) view.metadata = p.metadata;
  if (p.nlp) view.nlp = p.nlp;
  return view;
}

export function messageViewFromRow(row: MessageWithRefs): MessageView {
  return messageView({
    id: row.id,
    direction: row.direction as 'sent' | 'received',
    sentAt: row.sent_at,
    deliveredAt: row.delivered_at,
    readAt: row.read_at,
    channel: { id: String(row.channel_id), type: row.channel_type as ChannelType },
    contact: { id: row.contact_id, phoneNumber: row.contact_phone_number, userRef: row.contact_user_ref, email: row.contact_email },
    content: JSON.parse(row.content) as Content,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
    nlp: row.nlp ? (JSON.parse(row.nlp) as NlpField) : null,
  });
}

/**
 * Events add the channel's name to the shape. Built key by key (this runs for every message);
 * typed as the shape, so a field added to it cannot be left out here.
 */
export function eventMessageData(view: MessageView, channelName: string): Record<string, unknown> {
  const data: MessageView = {
    id: view.id,
    direction: view.direction,
    sent: view.sent,
    delivered: view.delivered,
    read: view.read,
    channel: { id: view.channel.id, type: view.channel.type, name: channelName },
    contact: view.contact,
    content: view.content,
  };
  if (view.metadata !== undefined) data.metadata = view.metadata;
  if (view.nlp !== undefined) data.nlp = view.nlp;
  return data;
}
