import { Type, type Static } from '@sinclair/typebox';
import { MessageResponse } from './content.js';

/**
 * What Get Message and List Messages add to the message shape (contract.md §3, beyond the
 * specification): how far the message got, and why it failed. The Send Message answer and the
 * event bodies keep the specification's shape without them.
 */
export const MESSAGE_STATUSES = ['pending', 'sent', 'delivered', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** The error codes of the `message_failed` event (messaging-api.md, Events, detail 3). */
export const MESSAGE_FAILED_CODES = {
  1: 'Error while processing the request.',
  2: 'Sending messages to this user is blocked.',
  3: 'Cannot find user for given phone number.',
  4: 'Message failed to be delivered within 24 hours.',
} as const;
export type MessageFailedCode = keyof typeof MESSAGE_FAILED_CODES;

export const MessageError = Type.Object(
  {
    code: Type.Unsafe<MessageFailedCode>({
      type: 'integer',
      enum: [1, 2, 3, 4],
      description:
        'A code of the message_failed event: 1 error while processing the request, 2 sending to this user is blocked, 3 no such user, 4 not delivered within 24 hours.',
    }),
    message: Type.String({ description: "The platform's reason when it gave one, else the code's text." }),
  },
  { $id: 'MessageError', title: 'Message error', additionalProperties: false },
);
export type MessageErrorView = Static<typeof MessageError>;

/** The SMS encodings a message's parts are counted in. */
export const MESSAGE_PART_ENCODINGS = ['gsm7', 'ucs2'] as const;

export const MessageParts = Type.Object(
  {
    count: Type.Integer({
      minimum: 1,
      description: 'How many SMS parts the message is sent in (the text as sent: a file as its link, quick replies as numbered choices).',
    }),
    encoding: Type.Unsafe<(typeof MESSAGE_PART_ENCODINGS)[number]>({
      type: 'string',
      enum: [...MESSAGE_PART_ENCODINGS],
      description: '`gsm7`: GSM 03.38 (160 characters in one part, 153 in each part of a longer message); `ucs2`: anything else (70, or 67 per part).',
    }),
  },
  {
    $id: 'MessageParts',
    title: 'Message parts',
    description: 'Beyond the specification, `mobile` messages only: the SMS parts the message is sent in and their encoding.',
    additionalProperties: false,
  },
);
export type MessagePartsView = Static<typeof MessageParts>;

export const MessageWithStatusResponse = Type.Intersect(
  [
    MessageResponse,
    Type.Object({
      status: Type.Unsafe<MessageStatus>({
        type: 'string',
        enum: [...MESSAGE_STATUSES],
        description:
          '`pending`: queued for an asynchronous platform; `sent`: taken by the platform (or stored in test mode, or received from the contact); `delivered`: the `delivered` or `read` time is known; `failed`: never reached the contact, see `error`.',
      }),
      error: Type.Optional(MessageError),
      parts: Type.Optional(MessageParts),
    }),
  ],
  {
    $id: 'MessageWithStatus',
    title: 'Message with status',
    description:
      'The message shape with `status`, `error` when failed, and `parts` on `mobile` messages sent through the API (beyond the specification): Get Message and List Messages.',
  },
);
export type MessageWithStatusView = Static<typeof MessageWithStatusResponse>;
