import { Type, type Static } from '@sinclair/typebox';
import { NOTIFICATION_TYPES } from '../../connectors/connector.js';
import { ChannelTypeSchema } from '../../schemas/channel-types.js';
import { IdString } from '../../schemas/common.js';

/** Send Notification (contract.md §6). */
const strict = { additionalProperties: false } as const;

export const SendNotificationBody = Type.Object(
  {
    channel: Type.Object({ id: Type.String({ minLength: 1, maxLength: 32 }) }, strict),
    contact: Type.Object({ id: Type.String({ minLength: 1, maxLength: 32 }) }, strict),
    type: Type.Union(
      NOTIFICATION_TYPES.map((t) => Type.Literal(t)),
      { description: 'typing_on, typing_off, messages_read; custom (with payload) on service_chat only.' },
    ),
    payload: Type.Optional(Type.Unknown({ description: 'custom only: any JSON, delivered to the browser as is.' })),
  },
  { ...strict, title: 'Send Notification' },
);
export type SendNotificationBody = Static<typeof SendNotificationBody>;

export const NotificationResponse = Type.Object(
  {
    channel: Type.Object({ id: IdString, type: ChannelTypeSchema }),
    contact: Type.Object({ id: IdString }),
    type: Type.String(),
    payload: Type.Optional(Type.Unknown()),
  },
  { $id: 'Notification', title: 'Notification' },
);
export type NotificationResponse = Static<typeof NotificationResponse>;

/** A custom payload is delivered through the browser's connection: bounded like a message. */
export const CUSTOM_PAYLOAD_MAX_CHARS = 16_000;
