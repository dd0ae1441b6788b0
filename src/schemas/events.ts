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
/** Events beyond the specification: `webhook_test`, sent on request from the administration app; `channel_state_changed`, when the platform moved a channel's state (the rbm agent). */
export const EXTRA_EVENT_TYPES = ['webhook_test', 'channel_state_changed'] as const;
export type EventType = (typeof EVENT_TYPES)[number] | (typeof EXTRA_EVENT_TYPES)[number];

/** Every event body: `{event, timestamp, data}`; data always names the channel and the contact. */
export interface EventEnvelope {
  event: EventType;
  timestamp: string;
  data: Record<string, unknown>;
}
