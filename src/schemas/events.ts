/** Event names of the webhook contract (messaging-api.md, Events). */
export const EVENT_TYPES = [
  'message_received',
  'messages_delivered',
  'messages_read',
  'message_echo',
  'message_failed',
  'postback',
  'opt_in',
  'notification',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Every event body: `{event, timestamp, data}`; data always names the channel and the contact. */
export interface EventEnvelope {
  event: EventType;
  timestamp: string;
  data: Record<string, unknown>;
}
