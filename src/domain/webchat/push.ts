import type { ChatMessage, ServerNotification } from '../../schemas/chat.js';

/**
 * How the domain reaches a contact's open browser connections (all of them, on every server
 * instance). The chat server implements it; until it is attached, nothing is pushed, and the
 * browser finds the messages with list_messages when it connects.
 */
export interface ChatPush {
  message(contactId: string, message: ChatMessage): void;
  notification(contactId: string, notification: ServerNotification): void;
}

export class ChatPushRelay implements ChatPush {
  private target: ChatPush | null = null;

  attach(target: ChatPush | null): void {
    this.target = target;
  }

  message(contactId: string, message: ChatMessage): void {
    this.target?.message(contactId, message);
  }

  notification(contactId: string, notification: ServerNotification): void {
    this.target?.notification(contactId, notification);
  }
}
