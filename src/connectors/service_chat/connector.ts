import type { MessageView } from '../../schemas/content.js';
import type { ServerNotification } from '../../schemas/chat.js';
import { isoTime } from '../../lib/clock.js';
import { defineConnector, type ChannelContext, type OutboundNotification, type PlatformResult, type SendReceipt } from '../connector.js';

/**
 * How the connector reaches a contact's open browser connections (on every server instance): the
 * chat server behind a relay, wired by the runtime. Until a chat server is attached nothing is
 * pushed, and the browser finds the messages with list_messages when it connects.
 */
export interface WebChatPush {
  message(contactId: string, message: MessageView): void;
  notification(contactId: string, notification: ServerNotification): void;
}

/** The notification as the web chat protocol shows it (`notification_server`, contract.md §9). */
export function serverNotification(notification: OutboundNotification): ServerNotification {
  switch (notification.type) {
    case 'messages_read':
      return { type: 'messages_read', last_read_timestamp: isoTime(notification.at) };
    case 'custom':
      return { type: 'custom', payload: notification.payload };
    default:
      return { type: notification.type };
  }
}

/**
 * service_chat is the service's own web chat: the service itself is the platform. A send is
 * accepted at once (the message is stored with status `sent`); what was stored reaches the
 * contact's browsers through the push port after it committed (`localPush`), so a browser
 * told of a message or a read mark finds it when it asks.
 */
export function createServiceChatConnector(options: { push: WebChatPush }) {
  const { push } = options;
  return defineConnector('service_chat', {
    sender: {
      send: (): Promise<PlatformResult<SendReceipt>> => Promise.resolve({ ok: true, value: { externalIds: [] } }),
    },
    localPush: {
      pushMessage(_channel: ChannelContext, contactId: string, message: MessageView): void {
        push.message(contactId, message);
      },
      pushNotification(_channel: ChannelContext, contactId: string, notification: OutboundNotification): void {
        push.notification(contactId, serverNotification(notification));
      },
    },
  });
}
