import { Type } from '@sinclair/typebox';
import { ApiError } from '../lib/errors.js';
import { charCount } from '../lib/text.js';
import type { Card, Content, Metadata } from '../schemas/content.js';
import type { ChannelTypeDefinition } from './definition.js';
import { NO_SETTINGS, PHONE_NUMBER_SHOWN, PLAIN_UPDATE, strict } from './common.js';

/** The channel's own URL the platform's callbacks go to (reports, replies, unsubscribes). */
const INBOUND_ENDPOINT = 'callbacks';

/** The platform's bounds of a message's time to live (s): 30 s to 14 days. */
export const TTL_MIN_S = 30;
export const TTL_MAX_S = 1_209_600;
/** Without a TTL of the message or the channel: the platform's longest (its documented default). */
export const DEFAULT_TTL_S = TTL_MAX_S;

/** Metadata of a send: its own time to live, and a video's duration (the platform needs it). */
export const TTL_METADATA = 'time_to_live';
export const VIDEO_DURATION_METADATA = 'video_duration';
const VIDEO_MAX_DURATION_S = 600;

/** A list message's title, its options, a card's text and a carousel's cards (platforms.md §4.4). */
const LIST_TITLE_MAX = 85;
const LIST_OPTIONS = { min: 2, max: 10 };
const TEXT_MAX = 1000;
const CAROUSEL = { min: 2, max: 5 };

/**
 * An ISO 8601 duration in seconds: weeks, days, hours, minutes and seconds (`PT20M`, `P1DT12H`,
 * `P2W`); years and months have no fixed length and are not taken. Null when it is not one.
 */
export function durationSeconds(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value);
  if (!m || value === 'P' || value.endsWith('T')) return null;
  const [w, d, h, min, s] = m.slice(1).map((part) => (part === undefined ? 0 : Number(part))) as [number, number, number, number, number];
  return w * 604_800 + d * 86_400 + h * 3_600 + min * 60 + s;
}

function checkTtl(field: string, value: unknown): number {
  const seconds = durationSeconds(value);
  if (seconds === null) {
    throw ApiError.invalid(
      field,
      value ?? null,
      `Property '${field}' must be an ISO 8601 duration such as PT20M or P1DT12H (weeks, days, hours, minutes, seconds).`,
    );
  }
  if (seconds < TTL_MIN_S || seconds > TTL_MAX_S) {
    throw ApiError.invalid(
      field,
      value,
      `Property '${field}' must be between 30 seconds (PT30S) and 14 days (P14D), the platform's bounds; it is ${seconds} s.`,
    );
  }
  return seconds;
}

/** The message's time to live (ms): its metadata's, else its channel's default, else the platform's longest. */
function timeToLiveMs(config: Record<string, unknown>, metadata: Metadata | undefined): number {
  const own = durationSeconds(metadata?.[TTL_METADATA]);
  const channel = durationSeconds(config.default_message_ttl);
  return (own ?? channel ?? DEFAULT_TTL_S) * 1000;
}

function checkMetadata(metadata: Metadata): Metadata {
  if (metadata[TTL_METADATA] !== undefined) checkTtl(`metadata.${TTL_METADATA}`, metadata[TTL_METADATA]);
  const duration = metadata[VIDEO_DURATION_METADATA];
  if (duration !== undefined && !(typeof duration === 'number' && Number.isInteger(duration) && duration >= 1 && duration <= VIDEO_MAX_DURATION_S)) {
    throw ApiError.invalid(
      `metadata.${VIDEO_DURATION_METADATA}`,
      duration ?? null,
      `Property 'metadata.${VIDEO_DURATION_METADATA}' must be the video's length in whole seconds, 1 to ${VIDEO_MAX_DURATION_S}.`,
    );
  }
  return metadata;
}

const cardText = (card: Card) => [card.title, card.text].filter(Boolean).join('\n');

/** A card the platform can show: a text, an image, or both with a url button; the text within its limit. */
function checkCard(card: Card, field: string, inCarousel: boolean): void {
  const text = cardText(card);
  if (text === '' && !card.image_url)
    throw ApiError.invalid(field, null, `Property '${field}' needs a title, a text or an image_url on an appmsg_business_messages channel.`);
  if (charCount(text) > TEXT_MAX) throw ApiError.invalid(field, null, `The title and text of '${field}' must be at most ${TEXT_MAX} characters together.`);
  if (card.item_url !== undefined) {
    throw ApiError.invalid(
      `${field}.item_url`,
      card.item_url,
      `An appmsg_business_messages card opens a link only through its url button: put the link in a button.`,
    );
  }
  if (!inCarousel && text !== '' && card.image_url && !card.buttons?.length) {
    throw ApiError.invalid(
      `${field}.buttons`,
      null,
      `A card with both an image and a text needs a url button on an appmsg_business_messages channel (send the image and the text as two messages otherwise).`,
    );
  }
}

/**
 * The platform's limits beyond the capabilities: quick replies go out as a list message (2 to
 * 10 options, its title at most 85 characters) and only with a text; a carousel has 2 to 5 cards;
 * a video needs its duration (`metadata.video_duration`).
 */
function checkContent(content: Content, metadata?: Metadata): undefined {
  const replies = content.quick_replies ?? [];
  if (replies.length > 0) {
    if (content.type !== 'text')
      throw ApiError.invalid('content.quick_replies', null, 'On an appmsg_business_messages channel quick replies go out as a list message: only with a text.');
    if (replies.length < LIST_OPTIONS.min || replies.length > LIST_OPTIONS.max) {
      throw ApiError.invalid(
        'content.quick_replies',
        null,
        `A list message has ${LIST_OPTIONS.min} to ${LIST_OPTIONS.max} options: send ${LIST_OPTIONS.min} to ${LIST_OPTIONS.max} quick replies.`,
      );
    }
    if (charCount(content.payload) > LIST_TITLE_MAX) {
      throw ApiError.invalid(
        'content.payload',
        content.payload,
        `With quick replies the text is a list message's title: at most ${LIST_TITLE_MAX} characters.`,
      );
    }
  }
  if (content.type === 'structure') {
    if (Array.isArray(content.payload)) {
      if (content.payload.length < CAROUSEL.min || content.payload.length > CAROUSEL.max) {
        throw ApiError.invalid(
          'content.payload',
          null,
          `A carousel has ${CAROUSEL.min} to ${CAROUSEL.max} cards; send one card as an object, not as an array.`,
        );
      }
      content.payload.forEach((card, i) => checkCard(card, `content.payload[${i}]`, true));
    } else checkCard(content.payload, 'content.payload', false);
  }
  if (content.type === 'video' && metadata?.[VIDEO_DURATION_METADATA] === undefined) {
    throw ApiError.invalid(
      `metadata.${VIDEO_DURATION_METADATA}`,
      null,
      `A video needs its length in seconds in 'metadata.${VIDEO_DURATION_METADATA}' (1 to ${VIDEO_MAX_DURATION_S}): the platform shows it.`,
    );
  }
  return undefined;
}

/** A messaging app's business messages to phone numbers: asynchronous sends with a time to live; a shared trial mode. */
export const appmsgBusinessMessages: ChannelTypeDefinition = {
  type: 'appmsg_business_messages',
  modes: ['production', 'test', 'shared'],
  capabilities: {
    contentTypes: ['text', 'image', 'video', 'file', 'structure'],
    quickReplies: 'native',
    quickReplyKinds: ['text'],
    buttons: ['url'],
    maxButtonsPerCard: 1,
    maxCards: CAROUSEL.max,
    maxTextLength: TEXT_MAX,
    notifications: [],
    delivery: 'async',
    contactForms: ['phone_number'],
  },
  input: {
    key: 'appmsg_business_messages',
    schema: Type.Object(
      {
        sender_id: Type.String({ pattern: '^[0-9]{1,18}$', description: "The platform's numeric service id the channel sends under." }),
        default_message_ttl: Type.Optional(
          Type.String({
            minLength: 2,
            maxLength: 40,
            description: 'ISO 8601 duration (e.g. PT20M), 30 s to 14 days: how long the platform tries to deliver a message. Absent: 14 days.',
          }),
        ),
        callback_secret: Type.Optional(
          Type.String({
            minLength: 16,
            maxLength: 200,
            description: "Beyond the specification: the secret the platform's callbacks are signed with; made by the service when not given.",
          }),
        ),
      },
      strict,
    ),
    secretFields: ['callback_secret'],
    required: true,
    prepareCreate(config) {
      if (config.default_message_ttl !== undefined) checkTtl('appmsg_business_messages.default_message_ttl', config.default_message_ttl);
    },
  },
  view: {
    schema: Type.Object({
      sender_id: Type.String(),
      default_message_ttl: Type.Optional(Type.String()),
      callback_url: Type.String({ description: "Beyond the specification: the URL to give the platform for the sender id's callbacks." }),
      callback_secret: Type.Optional(Type.String({ description: 'Beyond the specification: the secret to sign them with.' })),
    }),
    render: ({ own, inboundUrl }) => {
      const view: Record<string, unknown> = { sender_id: String(own.sender_id) };
      if (typeof own.default_message_ttl === 'string') view.default_message_ttl = own.default_message_ttl;
      view.callback_url = inboundUrl(INBOUND_ENDPOINT);
      if (typeof own.callback_secret === 'string') view.callback_secret = own.callback_secret;
      return { appmsg_business_messages: view };
    },
  },
  update: {
    ...PLAIN_UPDATE,
    apply(config, patch) {
      if (patch?.default_message_ttl !== undefined) checkTtl('appmsg_business_messages.default_message_ttl', patch.default_message_ttl);
    },
  },
  contactView: PHONE_NUMBER_SHOWN,
  send: { reservedMetadata: [TTL_METADATA, VIDEO_DURATION_METADATA], checkMetadata, checkContent, timeToLiveMs },
  settings: NO_SETTINGS,
  inboundEndpoints: [INBOUND_ENDPOINT],
  webChat: false,
};
