import { Type } from '@sinclair/typebox';
import { ApiError } from '../../lib/errors.js';
import { charCount } from '../../lib/text.js';
import type { Card, Content, Metadata } from '../../schemas/content.js';
import type { ChannelTypeDefinition } from '../../channel-types/definition.js';
import { NO_SETTINGS, PHONE_NUMBER_SHOWN, PLAIN_UPDATE, strict } from '../../channel-types/common.js';
import type { ChannelTypeUi } from '../../channel-types/ui.js';

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
/** A video's preview picture (the platform always shows one; its URL at most 1000 characters). */
export const VIDEO_THUMBNAIL_METADATA = 'video_thumbnail';
const THUMBNAIL_URL_MAX = 1000;
/** A carousel's own text, shown above its cards. */
export const CAROUSEL_TEXT_METADATA = 'carousel_text';
/**
 * An approved template a text is sent as (type 1702; plain text, 206, is closed to sender ids made
 * after 2026-04-01): its id, its language, and its parameters by name (texts of at most 125
 * characters, no URLs, per public integrations of the partner API).
 */
export const TEMPLATE_ID_METADATA = 'template_id';
export const TEMPLATE_LANG_METADATA = 'template_lang';
export const TEMPLATE_PARAMS_METADATA = 'template_params';
const TEMPLATE_PARAM_MAX = 125;
const TEMPLATE_PARAMS_MAX = 20;

/** A carousel card: its title (2 to 38 characters), its buttons' labels (primary at most 10, secondary 12). */
const CAROUSEL_TITLE = { min: 2, max: 38 };
const CAROUSEL_LABEL_MAX = [10, 12] as const;

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

function invalid(field: string, value: unknown, message: string): never {
  throw ApiError.invalid(field, value ?? null, message);
}

function checkTemplate(metadata: Metadata): void {
  const id = metadata[TEMPLATE_ID_METADATA];
  const lang = metadata[TEMPLATE_LANG_METADATA];
  const params = metadata[TEMPLATE_PARAMS_METADATA];
  if (id === undefined) {
    if (lang !== undefined || params !== undefined)
      invalid(`metadata.${TEMPLATE_ID_METADATA}`, null, `A template's language and parameters go with its id in 'metadata.${TEMPLATE_ID_METADATA}'.`);
    return;
  }
  if (typeof id !== 'string' || !/^[A-Za-z0-9_.:-]{1,100}$/.test(id))
    invalid(
      `metadata.${TEMPLATE_ID_METADATA}`,
      id,
      `Property 'metadata.${TEMPLATE_ID_METADATA}' must be the approved template's id (1 to 100 letters, digits, '-', '_', '.', ':').`,
    );
  if (typeof lang !== 'string' || !/^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?$/.test(lang))
    invalid(
      `metadata.${TEMPLATE_LANG_METADATA}`,
      lang,
      `Property 'metadata.${TEMPLATE_LANG_METADATA}' must be the template's language code (such as en or pt_BR).`,
    );
  if (params === undefined) return;
  if (params === null || typeof params !== 'object' || Array.isArray(params))
    invalid(`metadata.${TEMPLATE_PARAMS_METADATA}`, params, `Property 'metadata.${TEMPLATE_PARAMS_METADATA}' must be an object of parameter names to texts.`);
  const entries = Object.entries(params as Record<string, unknown>);
  if (entries.length > TEMPLATE_PARAMS_MAX)
    invalid(`metadata.${TEMPLATE_PARAMS_METADATA}`, null, `A template takes at most ${TEMPLATE_PARAMS_MAX} parameters.`);
  for (const [name, value] of entries) {
    const field = `metadata.${TEMPLATE_PARAMS_METADATA}.${name}`;
    if (!/^[A-Za-z0-9_]{1,50}$/.test(name)) invalid(field, null, `A template parameter's name has 1 to 50 letters, digits or '_'.`);
    if (typeof value !== 'string' || value === '' || charCount(value) > TEMPLATE_PARAM_MAX)
      invalid(field, value, `Property '${field}' must be a text of 1 to ${TEMPLATE_PARAM_MAX} characters.`);
    if (/https?:\/\//i.test(value)) invalid(field, value, `Property '${field}' must not hold a URL: the platform takes only text in template parameters.`);
  }
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
  const thumbnail = metadata[VIDEO_THUMBNAIL_METADATA];
  if (thumbnail !== undefined && !(typeof thumbnail === 'string' && /^https?:\/\/\S+$/i.test(thumbnail) && thumbnail.length <= THUMBNAIL_URL_MAX)) {
    invalid(
      `metadata.${VIDEO_THUMBNAIL_METADATA}`,
      thumbnail,
      `Property 'metadata.${VIDEO_THUMBNAIL_METADATA}' must be the URL of the video's preview picture (http or https, at most ${THUMBNAIL_URL_MAX} characters).`,
    );
  }
  const carouselText = metadata[CAROUSEL_TEXT_METADATA];
  if (carouselText !== undefined && !(typeof carouselText === 'string' && carouselText.trim() !== '' && charCount(carouselText) <= TEXT_MAX)) {
    invalid(`metadata.${CAROUSEL_TEXT_METADATA}`, carouselText, `Property 'metadata.${CAROUSEL_TEXT_METADATA}' must be a text of 1 to ${TEXT_MAX} characters.`);
  }
  checkTemplate(metadata);
  return metadata;
}

const cardText = (card: Card) => [card.title, card.text].filter(Boolean).join('\n');

/** A single card the platform can show: a text, an image, or both with one url button; the text within its limit. */
function checkCard(card: Card, field: string): void {
  const text = cardText(card);
  if (text === '' && !card.image_url)
    throw ApiError.invalid(field, null, `Property '${field}' needs a title, a text or an image_url on an appmsg_business_messages channel.`);
  if (charCount(text) > TEXT_MAX) throw ApiError.invalid(field, null, `The title and text of '${field}' must be at most ${TEXT_MAX} characters together.`);
  checkNoItemUrl(card, field);
  if ((card.buttons?.length ?? 0) > 1)
    throw ApiError.invalid(
      `${field}.buttons`,
      null,
      'A single card on an appmsg_business_messages channel has at most one url button (two only in a carousel).',
    );
  if (text !== '' && card.image_url && !card.buttons?.length) {
    throw ApiError.invalid(
      `${field}.buttons`,
      null,
      `A card with both an image and a text needs a url button on an appmsg_business_messages channel (send the image and the text as two messages otherwise).`,
    );
  }
}

function checkNoItemUrl(card: Card, field: string): void {
  if (card.item_url !== undefined) {
    throw ApiError.invalid(
      `${field}.item_url`,
      card.item_url,
      `An appmsg_business_messages card opens a link only through its url button: put the link in a button.`,
    );
  }
}

/** A carousel card: a title of 2 to 38 characters, an image, a primary url button (label at most 10) and maybe a secondary one (12). */
function checkCarouselCard(card: Card, field: string): void {
  checkNoItemUrl(card, field);
  const title = card.title ?? '';
  if (charCount(title) < CAROUSEL_TITLE.min || charCount(title) > CAROUSEL_TITLE.max) {
    throw ApiError.invalid(
      `${field}.title`,
      card.title ?? null,
      `A carousel card's title has ${CAROUSEL_TITLE.min} to ${CAROUSEL_TITLE.max} characters on an appmsg_business_messages channel.`,
    );
  }
  if (card.text !== undefined)
    throw ApiError.invalid(
      `${field}.text`,
      card.text,
      `A carousel card shows only its title, image and buttons: the carousel's text goes in 'metadata.${CAROUSEL_TEXT_METADATA}'.`,
    );
  if (!card.image_url) throw ApiError.invalid(`${field}.image_url`, null, 'A carousel card needs an image_url on an appmsg_business_messages channel.');
  const buttons = card.buttons ?? [];
  if (buttons.length === 0) throw ApiError.invalid(`${field}.buttons`, null, 'A carousel card needs a url button (a second one is optional).');
  buttons.forEach((b, j) => {
    const max = CAROUSEL_LABEL_MAX[j] ?? 0;
    if (charCount(b.title) > max) {
      throw ApiError.invalid(
        `${field}.buttons[${j}].title`,
        b.title,
        `A carousel card's ${j === 0 ? 'first' : 'second'} button has a label of at most ${max} characters.`,
      );
    }
  });
}

/**
 * The platform's limits beyond the capabilities: quick replies go out as a list message (2 to
 * 10 options, its title at most 85 characters) and only with a text; a carousel has 2 to 5 cards
 * of its own shape and its text in metadata; a video needs its duration and a preview picture; a
 * template goes only with a text. Whether a plain text may go out as type 206 depends on the
 * channel's configuration, which these rules do not see: the connector refuses it when sending.
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
      if (metadata?.[CAROUSEL_TEXT_METADATA] === undefined)
        throw ApiError.invalid(
          `metadata.${CAROUSEL_TEXT_METADATA}`,
          null,
          `A carousel needs its own text in 'metadata.${CAROUSEL_TEXT_METADATA}': the platform shows it above the cards.`,
        );
      content.payload.forEach((card, i) => checkCarouselCard(card, `content.payload[${i}]`));
    } else checkCard(content.payload, 'content.payload');
  }
  if (content.type === 'video') {
    if (metadata?.[VIDEO_DURATION_METADATA] === undefined) {
      throw ApiError.invalid(
        `metadata.${VIDEO_DURATION_METADATA}`,
        null,
        `A video needs its length in seconds in 'metadata.${VIDEO_DURATION_METADATA}' (1 to ${VIDEO_MAX_DURATION_S}): the platform shows it.`,
      );
    }
    if (metadata[VIDEO_THUMBNAIL_METADATA] === undefined)
      throw ApiError.invalid(
        `metadata.${VIDEO_THUMBNAIL_METADATA}`,
        null,
        `A video needs a preview picture's URL in 'metadata.${VIDEO_THUMBNAIL_METADATA}': the platform always shows one.`,
      );
  }
  if (metadata?.[TEMPLATE_ID_METADATA] !== undefined && (content.type !== 'text' || replies.length > 0)) {
    throw ApiError.invalid(
      `metadata.${TEMPLATE_ID_METADATA}`,
      metadata[TEMPLATE_ID_METADATA],
      "A template goes with a text without quick replies: the text is what this service stores and shows, the platform sends the template's own.",
    );
  }
  return undefined;
}

// How the administration app shows the type (labels and hints; served by the admin channel-types route).
const APPMSG_BUSINESS_MESSAGES_UI: ChannelTypeUi = {
  label: 'App business messages (appmsg_business_messages)',
  shortLabel: 'App business',
  intro: 'Business messages through the app platform. Shared mode sends under a common sender identity, free of charge and limited in number.',
  fields: [
    {
      path: 'appmsg_business_messages.sender_id',
      label: 'Sender id',
      kind: 'text',
      hint: "The platform's numeric service id the channel sends under.",
      placeholder: '4001',
    },
    {
      path: 'appmsg_business_messages.default_message_ttl',
      label: 'Default message lifetime',
      kind: 'text',
      hint: 'Optional: how long the platform tries to deliver a message, as an ISO 8601 duration from PT30S to P14D (e.g. PT20M). Empty: 14 days.',
      placeholder: 'PT20M',
    },
    {
      path: 'appmsg_business_messages.legacy_plain_text',
      label: 'Sender id may still send plain text (made before 1 April 2026)',
      kind: 'boolean',
    },
    {
      path: 'appmsg_business_messages.callback_secret',
      label: 'Callback secret',
      kind: 'text',
      hint: "Optional, 16 to 200 letters, digits, '-' or '_': the token of the callback URL that proves a callback is the platform's; the service makes one when empty.",
    },
  ],
  platformUrls: [
    { path: 'appmsg_business_messages.callback_url', label: "Callback URL, its token included (give it to the platform for the sender id's callbacks)" },
    { path: 'appmsg_business_messages.callback_secret', label: "Callback secret (the callback URL's token)", copyLabel: 'Copy secret' },
  ],
};

/** A messaging app's business messages to phone numbers: asynchronous sends with a time to live; a shared trial mode. */
export const appmsgBusinessMessages: ChannelTypeDefinition = {
  type: 'appmsg_business_messages',
  ui: APPMSG_BUSINESS_MESSAGES_UI,
  modes: ['production', 'test', 'shared'],
  capabilities: {
    contentTypes: ['text', 'image', 'video', 'file', 'structure'],
    quickReplies: 'native',
    quickReplyKinds: ['text'],
    buttons: ['url'],
    maxButtonsPerCard: 2,
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
            pattern: '^[A-Za-z0-9_-]+$',
            description:
              "Beyond the specification: the token of the callback URL (or of a relay's signature) that proves a callback is the platform's; made by the service when not given.",
          }),
        ),
        legacy_plain_text: Type.Optional(
          Type.Boolean({
            description:
              'Beyond the specification: the sender id was made before 2026-04-01 and may still send plain text (type 206). Default false: a text is sent as the template named in its metadata.',
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
      legacy_plain_text: Type.Boolean(),
      callback_url: Type.String({ description: "Beyond the specification: the URL (with its key) to give the platform for the sender id's callbacks." }),
      callback_secret: Type.Optional(Type.String({ description: "Beyond the specification: the callback URL's token (or a relay's signing secret)." })),
    }),
    render: ({ own, inboundUrl }) => {
      const view: Record<string, unknown> = { sender_id: String(own.sender_id) };
      if (typeof own.default_message_ttl === 'string') view.default_message_ttl = own.default_message_ttl;
      view.legacy_plain_text = own.legacy_plain_text === true;
      // The platform calls the URL it was given, query included: the key in it proves the call.
      const key = typeof own.callback_secret === 'string' ? `?token=${encodeURIComponent(own.callback_secret)}` : '';
      view.callback_url = `${inboundUrl(INBOUND_ENDPOINT)}${key}`;
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
  send: {
    reservedMetadata: [
      TTL_METADATA,
      VIDEO_DURATION_METADATA,
      VIDEO_THUMBNAIL_METADATA,
      CAROUSEL_TEXT_METADATA,
      TEMPLATE_ID_METADATA,
      TEMPLATE_LANG_METADATA,
      TEMPLATE_PARAMS_METADATA,
    ],
    checkMetadata,
    checkContent,
    timeToLiveMs,
  },
  settings: NO_SETTINGS,
  inboundEndpoints: [INBOUND_ENDPOINT],
  webChat: false,
};
