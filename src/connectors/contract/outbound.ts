import type { Content, MessageView } from '../../schemas/content.js';
import type { ChannelContext, Recipient } from './channel.js';
import type { PlatformResult } from './result.js';

/** A message to send; its content has passed the type's capabilities already. */
export interface OutboundMessage {
  /** The service's id of the message (platforms that take a client id or reference get it). */
  id: string;
  content: Content;
  metadata?: Record<string, unknown>;
  /**
   * How long the platform may keep trying to deliver it (ms): rendered as the platform's own
   * expiry (a `ttl`, a `validity`, an `expireTime`); when it passes the platform reports the
   * message `expired`. Absent: the platform's default.
   */
  ttlMs?: number;
  /**
   * For types that thread a conversation (e-mail headers): the contact's earlier messages that the
   * platform took or sent, oldest first (the type's `send.conversationDepth` newest of them).
   */
  conversation?: readonly ConversationEntry[];
}

/** One earlier message of a conversation, as a threading platform needs it. */
export interface ConversationEntry {
  /** The platform's id of the message (an e-mail's Message-ID). */
  externalId: string;
  direction: 'sent' | 'received';
  metadata?: Record<string, unknown>;
}

/** What the platform answered to a send. */
export interface SendReceipt {
  /**
   * The platform's ids of the message, which later status reports and receipts name: usually one;
   * several when the platform splits the message (SMS parts) or sends one per recipient; none
   * when the platform gives no id.
   */
  externalIds: readonly string[];
  /** The platform's id of the user, when the send revealed it (e.g. a send by phone number). */
  contactExternalId?: string | null;
}

/**
 * Checks what only a request to the outside can tell before a queued message is stored (the size
 * and address of a file the platform is to be sent as an attachment): a refusal is answered 422
 * naming `field`; a check that could not be made (a file server that is down) lets the message
 * through, for the send worker to try.
 */
export interface ContentChecker {
  checkContent(channel: ChannelContext, content: Content): Promise<PlatformResult<null>>;
}

/** Sends one message to the platform. Synchronous types are called inside the Send Message request; asynchronous ones by the send worker. */
export interface Sender {
  send(channel: ChannelContext, recipient: Recipient, message: OutboundMessage): Promise<PlatformResult<SendReceipt>>;
}

export const NOTIFICATION_TYPES = ['typing_on', 'typing_off', 'messages_read', 'custom'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface OutboundNotification {
  type: NotificationType;
  /** `custom` only: the client's payload. */
  payload?: unknown;
  /** When the service sent it (ms); for `messages_read`, the time up to which the contact's messages count as read. */
  at: number;
  /** `messages_read`: the platform's id of the contact's latest message, for platforms that mark a message read by its id. */
  lastReceivedExternalId?: string;
}

/** Sends a notification (typing, read receipt) to the contact on the platform; only types the type's capabilities list reach it. */
export interface NotificationSender {
  sendNotification(channel: ChannelContext, recipient: Recipient, notification: OutboundNotification): Promise<PlatformResult<null>>;
}

/**
 * For a type whose platform is the service itself (service_chat): what the service stored
 * reaches the contact's open connections only after it committed, so a browser that is told of
 * a message or a read mark finds it when it asks. Nothing here can fail: a contact without an
 * open connection finds the messages when it connects.
 */
export interface LocalPush {
  /** A message the service stored for the contact (status `sent`), after its commit. */
  pushMessage(channel: ChannelContext, contactId: string, message: MessageView): void;
  /** A notification; for `messages_read` after the read marks committed. */
  pushNotification(channel: ChannelContext, contactId: string, notification: OutboundNotification): void;
}
