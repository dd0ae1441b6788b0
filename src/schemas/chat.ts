/**
 * The web chat protocol (contract.md §9) as both ends see it: socket.io event names, the
 * handshake query, payloads and error codes. The browser client (web/widget) imports these
 * types, so the two ends cannot drift apart.
 */
import type { Button, Card, Content, QuickReply } from './content.js';

/** Server to client. */
export const SERVER_EVENTS = {
  connectionAccepted: 'connection_accepted',
  connectionRejected: 'connection_rejected',
  messageServer: 'message_server',
  messageClientEcho: 'message_client_echo',
  notificationServer: 'notification_server',
} as const;

/** Client to server; every one is acknowledged. */
export const CLIENT_EVENTS = {
  messageClient: 'message_client',
  notificationClient: 'notification_client',
  messagesRead: 'messages_read',
  messageDelivered: 'message_delivered',
  postback: 'postback',
  listMessages: 'list_messages',
  fileUpload: 'file_upload',
} as const;

/** connection_rejected error codes. */
export const REJECTION = {
  /** The session belongs to another channel: forget it and connect without one. */
  sessionOfOtherChannel: 1,
  /** No such (service_chat) channel. */
  noSuchChannel: 2,
  /** The page's origin is not in the channel's domains_whitelist. */
  originNotAllowed: 3,
  /** Too many connections or new sessions from the client's address: try again later. */
  tooManyConnections: 4,
} as const;
export type RejectionCode = (typeof REJECTION)[keyof typeof REJECTION];

/**
 * Error codes of acknowledgements, named after the HTTP statuses they resemble: 400 the
 * payload is not an object or the event is unknown, 404 the message or channel is gone, 413 the
 * file is too large, 422 a field is invalid (details name it), 429 too many events or upload
 * bytes (details.retry_after says when to try again), 500 the server failed, 507 the channel's
 * storage for uploads is full.
 */
export type AckErrorCode = 400 | 404 | 413 | 422 | 429 | 500 | 507;

export interface AckError {
  error_code: AckErrorCode;
  /** retry_after: seconds after which the same request may succeed. */
  details: { message: string; field?: string; retry_after?: number };
}

export interface HandshakeQuery {
  v: '1';
  channel_id: string;
  /** Resumes a stored session. */
  session_id?: string;
  /** The site's own id for a signed-in user: the same contact on every device. */
  external_contact_id?: string;
}

export interface ConnectionAccepted {
  session_id: string;
}

export interface ConnectionRejected {
  error_code: RejectionCode;
  details: { message: string; retry_after?: number };
}

/** A message as the browser sees it: `sent` is the user's, `received` the site's. */
export interface ChatMessage {
  id: string;
  direction: 'sent' | 'received';
  sent: string;
  delivered: string | null;
  read: string | null;
  content: ChatContent;
  metadata?: Record<string, unknown>;
}

/**
 * Content as the browser sees it: the neutral content of Send Message (structures, quick
 * replies, media), plus `quick_reply` in a user's message when they tapped a quick reply.
 */
export type ChatContent = Content & {
  quick_reply?: { payload: string };
};
export type { Button, Card, QuickReply };

/** notification_server: what the site sent through Send Notification. */
export type ServerNotification =
  { type: 'typing_on' } | { type: 'typing_off' } | { type: 'messages_read'; last_read_timestamp: string } | { type: 'custom'; payload: unknown };

export interface MessageClientRequest {
  content: ChatContent;
  metadata?: Record<string, unknown>;
}
export interface NotificationClientRequest {
  type: 'custom';
  payload: unknown;
  metadata?: Record<string, unknown>;
}
export interface MessageDeliveredRequest {
  message_id: string;
}
export interface PostbackRequest {
  payload: string;
}
export interface ListMessagesRequest {
  pagination?: { max?: number; cursor_next?: string | null };
}
export interface ListMessagesResponse {
  messages: ChatMessage[];
  cursor: { next: string | null; has_next: boolean };
}
export interface FileUploadRequest {
  name: string;
  mime_type: string;
  content_buffer: ArrayBuffer | Uint8Array;
}
export interface FileUploadResponse {
  url: string;
}
