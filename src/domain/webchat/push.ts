import type { ChatMessage, ServerNotification } from '../../schemas/chat.js';
import type { MessageView } from '../../schemas/content.js';
import { chatMessageFromView } from './view.js';

/**
 * How the service reaches a contact's open browser connections (all of them, on every server
 * instance). The chat server implements it; until it is attached, nothing is pushed, and the
 * browser finds the messages with list_messages when it connects.
 */
export interface ChatPush {
  message(contactId: string, message: ChatMessage): void;
  notification(contactId: string, notification: ServerNotification): void;
}

/**
 * The push port of the web chat's connector (the runtime hands it this relay), wired to the chat
 * server once it exists (a worker-only process has none). Messages are turned into the browser's view of them here (the site's sends
 * are `received` from the user's side).
 */
export class ChatPushRelay {
  private target: ChatPush | null = null;

  attach(target: ChatPush | null): void {
    this.target = target;
  }

  message(contactId: string, message: MessageView): void {
    this.target?.message(contactId, chatMessageFromView(message));
  }

  notification(contactId: string, notification: ServerNotification): void {
    this.target?.notification(contactId, notification);
  }
}
