import { MESSAGE_FAILED_CODES, type MessageFailedCode } from '../../schemas/message-status.js';
import type { EventInput } from '../events/outbox.js';
import type { Channel } from '../channels/view.js';

/** The contact as a `message_failed` event names it. */
export interface FailedContact {
  id: number;
  phone_number: string | null;
  user_ref: string | null;
}

/** The stored reason of a failed message (`messages.error`): the event's code and the platform's reason. */
export function storedFailure(code: MessageFailedCode, reason: string | undefined): string {
  return JSON.stringify({ code, message: reason && reason.trim() !== '' ? reason : MESSAGE_FAILED_CODES[code] });
}

/**
 * `message_failed` (messaging-api.md, Events): channel, contact (id, phone_number), message (id
 * only) and error {code, message} with the specification's text of the code. The platform's own
 * reason is kept with the message (Get Message shows it).
 */
export function messageFailedEvent(channel: Channel, contact: FailedContact, messageId: number, code: MessageFailedCode): EventInput {
  const ref: Record<string, string> = { id: String(contact.id) };
  if (contact.phone_number) ref.phone_number = contact.phone_number;
  if (contact.user_ref) ref.user_ref = contact.user_ref;
  return {
    type: 'message_failed',
    channel,
    contactId: contact.id,
    messageId,
    data: {
      channel: { id: channel.id, type: channel.type, name: channel.name },
      contact: ref,
      message: { id: String(messageId) },
      error: { code, message: MESSAGE_FAILED_CODES[code] },
    },
  };
}
