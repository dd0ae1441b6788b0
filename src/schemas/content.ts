import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { IdString, Timestamp, TYPE_DISCRIMINATOR } from './common.js';
import { ChannelTypeSchema } from './channel-types.js';
import { NlpField } from './nlp.js';
import { FAILOVER_CONDITIONS, FailoverView } from './failover.js';

/**
 * The neutral message body shared by every channel type (contract.md §3): content types, quick
 * replies, buttons and the Send Message envelope. These schemas are the source of the TypeScript
 * types and of the OpenAPI document; channel-specific rules (capabilities, reserved metadata
 * keys, addressing) are applied by the domain on top of them.
 */
const strict = { additionalProperties: false } as const;

export const CONTENT_TYPES = ['text', 'image', 'video', 'audio', 'file', 'location', 'structure', 'receipt'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export const QUICK_REPLY_KINDS = ['text', 'location', 'email', 'phone_number'] as const;
export type QuickReplyKind = (typeof QUICK_REPLY_KINDS)[number];

export const BUTTON_TYPES = ['url', 'postback', 'phone'] as const;
export type ButtonType = (typeof BUTTON_TYPES)[number];

/** How a Send Message request names its contact (contract.md §3). */
export const CONTACT_FORMS = ['id', 'phone_number', 'user_ref', 'email'] as const;
export type ContactForm = (typeof CONTACT_FORMS)[number];

/** Limits of the specification's Limits table. */
export const LIMITS = {
  quickReplies: 11,
  quickReplyTitle: 20,
  quickReplyPayload: 1000,
  buttonTitle: 20,
  postbackPayload: 1000,
  platformMetadata: 1000,
} as const;

const HttpUrl = Type.String({ format: 'uri', maxLength: 2048, description: 'Absolute http or https URL.' });

// Quick replies: `type` picks the kind.
export const TextQuickReply = Type.Object(
  {
    type: Type.Literal('text'),
    title: Type.String({ minLength: 1, description: `Shown on the button; longer than ${LIMITS.quickReplyTitle} characters is truncated.` }),
    payload: Type.String({ minLength: 1, maxLength: LIMITS.quickReplyPayload, description: 'Delivered back in message_received when tapped.' }),
    image_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'Icon, at least 24x24 px.' })),
  },
  { ...strict, title: 'Text quick reply' },
);
export const QUICK_REPLY_SCHEMAS: Record<QuickReplyKind, TObject> = {
  text: TextQuickReply,
  location: Type.Object({ type: Type.Literal('location') }, { ...strict, title: 'Location quick reply' }),
  email: Type.Object({ type: Type.Literal('email') }, { ...strict, title: 'E-mail quick reply' }),
  phone_number: Type.Object({ type: Type.Literal('phone_number') }, { ...strict, title: 'Phone number quick reply' }),
};
export const QuickReply = Type.Union(Object.values(QUICK_REPLY_SCHEMAS), { discriminator: TYPE_DISCRIMINATOR, title: 'Quick reply' });
export type QuickReply = Static<typeof TextQuickReply> | { type: Exclude<QuickReplyKind, 'text'> };

// Buttons (in structure cards).
const ButtonTitle = Type.String({ minLength: 1, maxLength: LIMITS.buttonTitle });
export const BUTTON_SCHEMAS: Record<ButtonType, TObject> = {
  url: Type.Object({ type: Type.Literal('url'), title: ButtonTitle, payload: HttpUrl }, { ...strict, title: 'URL button' }),
  postback: Type.Object(
    {
      type: Type.Literal('postback'),
      title: ButtonTitle,
      payload: Type.String({ minLength: 1, maxLength: LIMITS.postbackPayload, description: 'Returned in the postback event.' }),
    },
    { ...strict, title: 'Postback button' },
  ),
  phone: Type.Object(
    { type: Type.Literal('phone'), title: ButtonTitle, payload: Type.String({ minLength: 1, maxLength: 40, description: 'Phone number; stored in E.164.' }) },
    { ...strict, title: 'Call button' },
  ),
};
export const Button = Type.Union(Object.values(BUTTON_SCHEMAS), { discriminator: TYPE_DISCRIMINATOR, title: 'Button' });
export interface Button {
  type: ButtonType;
  title: string;
  payload: string;
}

/** Checked before each button is checked against its own type. */
const AnyTagged = Type.Object({ type: Type.String() }, { additionalProperties: true });

/** The general card limits; a channel type may allow fewer (capabilities). */
export const MAX_BUTTONS_PER_CARD = 3;
export const MAX_CARDS = 10;

/** A card as first checked: its buttons are checked one by one after it. */
export const CardShape = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 640 })),
    image_url: Type.Optional(HttpUrl),
    item_url: Type.Optional(HttpUrl),
    buttons: Type.Optional(Type.Array(AnyTagged, { minItems: 1, maxItems: MAX_BUTTONS_PER_CARD })),
  },
  { ...strict, title: 'Card' },
);
export const Card = Type.Object(
  { ...CardShape.properties, buttons: Type.Optional(Type.Array(Button, { minItems: 1, maxItems: MAX_BUTTONS_PER_CARD })) },
  { ...strict, title: 'Card' },
);
export interface Card {
  title?: string;
  text?: string;
  image_url?: string;
  item_url?: string;
  buttons?: Button[];
}

export const Receipt = Type.Object(
  {
    recipient_name: Type.String({ minLength: 1, maxLength: 200 }),
    order_number: Type.String({ minLength: 1, maxLength: 200 }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.' }),
    payment_method: Type.String({ minLength: 1, maxLength: 200 }),
    order_url: Type.Optional(HttpUrl),
    timestamp: Type.Optional(Timestamp),
    address: Type.Optional(
      Type.Object(
        {
          street_1: Type.String({ minLength: 1, maxLength: 200 }),
          street_2: Type.Optional(Type.String({ maxLength: 200 })),
          city: Type.String({ minLength: 1, maxLength: 200 }),
          postal_code: Type.String({ minLength: 1, maxLength: 40 }),
          state: Type.String({ minLength: 1, maxLength: 200 }),
          country: Type.String({ minLength: 2, maxLength: 2 }),
        },
        strict,
      ),
    ),
    summary: Type.Object(
      {
        subtotal: Type.Optional(Type.Number()),
        shipping_cost: Type.Optional(Type.Number()),
        total_tax: Type.Optional(Type.Number()),
        total_cost: Type.Number(),
      },
      strict,
    ),
    adjustments: Type.Optional(
      Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), amount: Type.Number() }, strict), { maxItems: 100 }),
    ),
    elements: Type.Optional(
      Type.Array(
        Type.Object(
          {
            title: Type.String({ minLength: 1, maxLength: 80 }),
            subtitle: Type.Optional(Type.String({ maxLength: 80 })),
            quantity: Type.Optional(Type.Integer({ minimum: 1 })),
            price: Type.Number(),
            currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
            image_url: Type.Optional(HttpUrl),
          },
          strict,
        ),
        { maxItems: 100 },
      ),
    ),
  },
  { ...strict, title: 'Receipt' },
);

/** Quick replies as first checked: each is checked against its own kind after the list. */
const QuickRepliesShape = Type.Array(AnyTagged, { maxItems: LIMITS.quickReplies });
const QuickReplies = Type.Array(QuickReply, { maxItems: LIMITS.quickReplies, description: `At most ${LIMITS.quickReplies}; any content type.` });

const MediaPayload = Type.Object({ url: HttpUrl }, strict);
export const LocationPayload = Type.Object(
  { latitude: Type.Number({ minimum: -90, maximum: 90 }), longitude: Type.Number({ minimum: -180, maximum: 180 }) },
  strict,
);

/** Members as the documentation shows them. */
function member(type: ContentType, payload: TSchema, title: string): TObject {
  return Type.Object({ type: Type.Literal(type), payload, quick_replies: Type.Optional(QuickReplies) }, { ...strict, title });
}
export const TEXT_PAYLOAD = Type.String({ minLength: 1, description: 'Non-empty text; channel types limit the length (capabilities).' });
export const CONTENT_DOC_SCHEMAS: Record<ContentType, TObject> = {
  text: member('text', TEXT_PAYLOAD, 'Text'),
  image: member('image', MediaPayload, 'Image'),
  video: member('video', MediaPayload, 'Video'),
  audio: member('audio', MediaPayload, 'Audio'),
  file: member('file', MediaPayload, 'File'),
  location: member('location', LocationPayload, 'Location'),
  structure: member(
    'structure',
    Type.Union([Card, Type.Array(Card, { minItems: 1, maxItems: MAX_CARDS })]),
    'Structure (a card, or an array of cards: horizontal scroll)',
  ),
  receipt: member('receipt', Receipt, 'Receipt'),
};
export const Content = Type.Union(Object.values(CONTENT_DOC_SCHEMAS), { discriminator: TYPE_DISCRIMINATOR, title: 'Content' });

/** Members as first checked: structures and quick replies are checked piece by piece after. */
function checked(type: ContentType, payload: TSchema): TObject {
  return Type.Object({ type: Type.Literal(type), payload, quick_replies: Type.Optional(QuickRepliesShape) }, strict);
}
export const CONTENT_CHECK_SCHEMAS: Record<ContentType, TObject> = {
  text: checked('text', TEXT_PAYLOAD),
  image: checked('image', MediaPayload),
  video: checked('video', MediaPayload),
  audio: checked('audio', MediaPayload),
  file: checked('file', MediaPayload),
  location: checked('location', LocationPayload),
  structure: checked('structure', Type.Union([Type.Object({}, { additionalProperties: true }), Type.Array(Type.Unknown())])),
  receipt: checked('receipt', Receipt),
};

export type Content =
  | { type: 'text'; payload: string; quick_replies?: QuickReply[] }
  | { type: 'image' | 'video' | 'audio' | 'file'; payload: { url: string }; quick_replies?: QuickReply[] }
  | { type: 'location'; payload: { latitude: number; longitude: number }; quick_replies?: QuickReply[] }
  | { type: 'structure'; payload: Card | Card[]; quick_replies?: QuickReply[] }
  | { type: 'receipt'; payload: Static<typeof Receipt>; quick_replies?: QuickReply[] };

export type Metadata = Record<string, unknown>;

/** The contact of a Send Message request: exactly one addressing form, checked per channel type. */
export const SendContact = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    phone_number: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'Free format; stored and returned in E.164.' })),
    first_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'With phone_number (socialnet_chat): helps match the user.' })),
    last_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    user_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'socialnet_chat: from an opt_in event.' })),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 320, description: 'email channels.' })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'With email: the display name.' })),
  },
  { ...strict, title: 'Contact (one of id, phone_number, user_ref, email)' },
);

/** The most fallback steps after the first channel. */
export const MAX_FALLBACKS = 4;

/** One fallback step of Send Message (beyond the specification, docs/failover.md). */
export const Fallback = Type.Object(
  {
    channel: Type.Object({ id: Type.String({ minLength: 1, maxLength: 32 }) }, strict),
    when: Type.Union(
      FAILOVER_CONDITIONS.map((c) => Type.Literal(c)),
      {
        description:
          'What of the step before moves on to this one: `failed` (it failed); `not_delivered` (it failed, or was not delivered within `within` seconds); `not_read` (it failed, or was not read within `within` seconds; only after a channel type that reports reads).',
      },
    ),
    within: Type.Optional(Type.Integer({ minimum: 1, maximum: 604_800, description: 'Seconds (1 to 7 days); with not_delivered and not_read only.' })),
    contact: Type.Optional(
      Type.Object(SendContact.properties, {
        ...strict,
        description:
          "How the contact is found or made on this channel; by default the phone number or e-mail address the earlier steps named, in the form this channel's type takes.",
      }),
    ),
    content: Type.Optional(
      Type.Object({ type: Type.String() }, { additionalProperties: true, description: "This step's own content; by default the step before's." }),
    ),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "This step's own metadata; by default the step before's." })),
  },
  { ...strict, title: 'Fallback' },
);

/**
 * The Send Message body as the route checks it. `content` is checked further by its `type`
 * (the domain, so that every error names its field); the documentation shows `Content`.
 */
export const SendMessageBody = Type.Object(
  {
    channel: Type.Object({ id: Type.String({ minLength: 1, maxLength: 32 }) }, strict),
    contact: SendContact,
    content: Type.Object({ type: Type.String() }, { additionalProperties: true }),
    fallbacks: Type.Optional(
      Type.Array(Fallback, {
        minItems: 1,
        maxItems: MAX_FALLBACKS,
        description:
          'Beyond the specification: channels of the same account to try after this one, in order (docs/failover.md). Messages sent with them show `failover` on Send Message and Get Message.',
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "Developer-defined data, returned in message_echo and List Messages. Beyond the specification, a channel type may reserve keys (Get Capabilities' `reserved_metadata`); `appmsg_business_messages` sends a text as the approved template named by `template_id`, `template_lang` and `template_params` (names to texts of at most 125 characters), and takes `video_duration` and `video_thumbnail` for a video, `carousel_text` for a carousel and `time_to_live`.",
      }),
    ),
  },
  { ...strict, title: 'Send Message' },
);
export type SendMessageBody = Static<typeof SendMessageBody>;
export const SendMessageDoc = Type.Object({ ...SendMessageBody.properties, content: Content }, { ...strict, title: 'Send Message' });

/** The message shape everywhere (send response, lists, message_echo and message_received data). */
export const MessageResponse = Type.Object(
  {
    id: IdString,
    direction: Type.Union([Type.Literal('sent'), Type.Literal('received')]),
    sent: Timestamp,
    delivered: Type.Union([Timestamp, Type.Null()]),
    read: Type.Union([Timestamp, Type.Null()]),
    channel: Type.Object({ id: IdString, type: ChannelTypeSchema, name: Type.Optional(Type.String({ description: 'In events only.' })) }),
    contact: Type.Object({
      id: IdString,
      phone_number: Type.Optional(Type.String()),
      user_ref: Type.Optional(Type.String()),
      email: Type.Optional(Type.String({ description: "The e-mail address of an email channel's contact." })),
    }),
    content: Content,
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    nlp: Type.Optional(NlpField),
    failover: Type.Optional(FailoverView),
  },
  { $id: 'Message', title: 'Message' },
);
export type MessageView = Static<typeof MessageResponse>;

export const ContactResponse = Type.Object(
  {
    id: IdString,
    name: Type.String(),
    phone_number: Type.Optional(Type.String({ description: 'E.164.' })),
    user_ref: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    gender: Type.Optional(Type.String()),
    time_zone: Type.Optional(Type.Union([Type.String(), Type.Number()])),
    photo_url: Type.Optional(Type.String()),
    country: Type.Optional(Type.String({ description: "Beyond the specification, appmsg: the user's country, as the platform gave it." })),
    language: Type.Optional(Type.String({ description: "Beyond the specification, appmsg: the user's language, as the platform gave it." })),
  },
  { $id: 'Contact', title: 'Contact' },
);
export type ContactView = Static<typeof ContactResponse>;
