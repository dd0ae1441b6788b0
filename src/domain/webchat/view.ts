import { isoTime } from '../../lib/clock.js';
import type { ChatContent, ChatMessage } from '../../schemas/chat.js';
import type { MessageView } from '../../schemas/content.js';
import type { MessagesTable } from '../../store/schema.js';

/**
 * Messages as the browser sees them: the direction from the user's side (what the site sent is
 * `received`, what the user sent is `sent`), without the ids of channel and contact.
 */
const flip = (direction: string): ChatMessage['direction'] => (direction === 'sent' ? 'received' : 'sent');

export function chatMessageFromRow(row: MessagesTable): ChatMessage {
  const view: ChatMessage = {
    id: String(row.id),
    direction: flip(row.direction),
    sent: isoTime(row.sent_at),
    delivered: row.delivered_at === null ? null : isoTime(row.delivered_at),
    read: row.read_at === null ? null : isoTime(row.read_at),
    content: JSON.parse(row.content) as ChatContent,
  };
  if (row.metadata !== null) view.metadata = JSON.parse(row.metadata) as Record<string, unknown>;
  return view;
}

/** A message of the API (e.g. a Send Message answer) for the browser. */
export function chatMessageFromView(message: MessageView): ChatMessage {
  const view: ChatMessage = {
    id: message.id,
    direction: flip(message.direction),
    sent: message.sent,
    delivered: message.delivered,
    read: message.read,
    content: message.content as ChatContent,
  };
  if (message.metadata) view.metadata = message.metadata;
  return view;
}
