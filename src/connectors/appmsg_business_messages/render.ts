import type { ChannelContext, OutboundMessage, PlatformResult, Recipient } from '../connector.js';
import { fileNameFromUrl } from '../http.js';
import type { Card, Content, Metadata } from '../../schemas/content.js';
import { FILE_NAME_MAX, PROMOTIONAL_TYPES, TTL_MAX_S, TTL_MIN_S, TYPES } from './options.js';

/**
 * A message as the partner API's `send_message` body. The content has passed the type's rules at
 * Send Message (its definition.ts), so what is left here is the mapping
 * (README.md, "Sending"):
 * - text naming a template (`metadata.template_id`): a template (1702), its text the platform's;
 *   plain text: 206, only on channels whose sender id may still send it (`legacy_plain_text`);
 *   text with quick replies: a list message (801) whose options are the quick replies' titles;
 * - image: 207; a card with an image, a text and a url button: 208; text and a url button: 209;
 *   an array of cards: a carousel (901) with the message's own text (`metadata.carousel_text`);
 * - file: 220 with its name (at most 25 characters, the extension kept) and type from the URL;
 * - video: 230, its URL in `#action`, `#thumbnail` from `metadata.video_thumbnail`, its size
 *   (read from the URL by the caller) and `metadata.video_duration`.
 * `label` is `promotion` for the types the platform bills as promotions, else `transaction`.
 * Every type that can be answered carries `#tracking_data` (our message id), which replies echo;
 * `seq` is our message id too.
 */
type Json = Record<string, unknown>;

export { TYPES };

/** Metadata naming a template and its parameters, and the parts of videos and carousels the content has no place for. */
export const TEMPLATE_ID = 'template_id';
export const TEMPLATE_LANG = 'template_lang';
export const TEMPLATE_PARAMS = 'template_params';
export const VIDEO_THUMBNAIL = 'video_thumbnail';
export const CAROUSEL_TEXT = 'carousel_text';

export function cardText(card: Card): string {
  return [card.title, card.text].filter((t): t is string => typeof t === 'string' && t !== '').join('\n');
}

/** A file name the platform shows: at most 25 characters, the extension kept. */
export function shortFileName(url: string): { name: string; extension: string } {
  const name = fileNameFromUrl(url, 'file');
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  if ([...name].length <= FILE_NAME_MAX) return { name, extension };
  const tail = extension ? `.${extension}` : '';
  const stem = [...name.slice(0, dot > 0 ? dot : name.length)].slice(0, FILE_NAME_MAX - tail.length).join('');
  return { name: stem + tail, extension };
}

function failure(code: string, message: string): PlatformResult<never> {
  return { ok: false, retryable: false, code, message };
}

const PLAIN_TEXT_CLOSED =
  'Plain text (type 206) is closed to sender ids made after 2026-04-01: name an approved template in metadata.template_id, or set the channel\u2019s legacy_plain_text if its sender id may still send it.';

/** A plain text as 206, where the channel's sender id may still send it. */
function plainText(channel: ChannelContext, text: string): PlatformResult<{ type: number; message: Json }> {
  if (channel.config.legacy_plain_text !== true) return failure('plain_text_closed', PLAIN_TEXT_CLOSED);
  return { ok: true, value: { type: TYPES.text, message: { '#txt': text } } };
}

function cardMessage(channel: ChannelContext, card: Card): PlatformResult<{ type: number; message: Json }> {
  const text = cardText(card);
  const button = card.buttons?.find((b) => b.type === 'url');
  if (card.image_url && button)
    return {
      ok: true,
      value: { type: TYPES.imageTextButton, message: { '#txt': text, '#img': card.image_url, '#caption': button.title, '#action': button.payload } },
    };
  if (button) return { ok: true, value: { type: TYPES.textButton, message: { '#txt': text, '#caption': button.title, '#action': button.payload } } };
  if (card.image_url) return { ok: true, value: { type: TYPES.image, message: { '#img': card.image_url } } };
  return plainText(channel, text);
}

/** A carousel card: its title, image and one or two url buttons (primary, secondary). */
function carouselItem(card: Card): Json {
  const [primary, secondary] = (card.buttons ?? []).filter((b) => b.type === 'url');
  const item: Json = { title: card.title ?? '', imageUrl: card.image_url ?? '' };
  if (primary) item.primaryButton = { label: primary.title, actionUrl: primary.payload };
  if (secondary) item.secondaryButton = { label: secondary.title, actionUrl: secondary.payload };
  return item;
}

/** A template's parameters as the platform takes them: names to texts. */
function templateParams(metadata: Metadata | undefined): Json {
  const params = metadata?.[TEMPLATE_PARAMS];
  return params !== null && typeof params === 'object' && !Array.isArray(params) ? { ...(params as Json) } : {};
}

/** What the sender must read before rendering a video: its size, from the URL. */
export interface RenderFacts {
  videoBytes?: number;
}

export function renderMessage(
  channel: ChannelContext,
  serviceId: string,
  recipient: Recipient,
  message: OutboundMessage,
  facts: RenderFacts = {},
): PlatformResult<Json> {
  const dest = (recipient.phoneNumber ?? '').replace(/\D/g, '');
  if (dest === '') return failure('no_recipient', 'The contact has no phone number.');
  const tracking = message.id;
  const metadata = message.metadata;
  const body: Json = { service_id: Number(serviceId), dest, seq: Number(message.id), label: 'transaction' };
  if (message.ttlMs !== undefined) {
    const ttl = Math.min(Math.ceil(message.ttlMs / 1000), TTL_MAX_S);
    // Less than the platform's shortest time to live is left: it would refuse the message, and
    // it could not be delivered in time anyway.
    if (ttl < TTL_MIN_S) return failure('ttl_elapsed', `Less than ${TTL_MIN_S} s of the message's time to live was left when it could be sent.`);
    body.ttl = ttl;
  }
  const content: Content = message.content;
  switch (content.type) {
    case 'text': {
      const choices = (content.quick_replies ?? []).flatMap((q) => (q.type === 'text' ? [q.title] : []));
      const template = metadata?.[TEMPLATE_ID];
      if (typeof template === 'string') {
        // The approved template's text is the platform's; the payload is what the service stores.
        body.type = TYPES.template;
        body.templateId = template;
        body.templateLang = metadata?.[TEMPLATE_LANG];
        body.templateParams = templateParams(metadata);
      } else if (choices.length > 0) {
        body.type = TYPES.list;
        body.message = { '#txt': content.payload, '#tracking_data': tracking };
        body.survey = { options: choices, list_message_ui_type: 0 };
      } else {
        const plain = plainText(channel, content.payload);
        if (!plain.ok) return plain;
        body.type = plain.value.type;
        body.message = { ...plain.value.message, '#tracking_data': tracking };
      }
      break;
    }
    case 'image':
      body.type = TYPES.image;
      body.message = { '#img': content.payload.url, '#tracking_data': tracking };
      break;
    case 'file': {
      const { name, extension } = shortFileName(content.payload.url);
      body.type = TYPES.file;
      body.file_type = extension || 'bin';
      body.message = { '#fileName': name, '#action': content.payload.url, '#tracking_data': tracking };
      break;
    }
    case 'video': {
      const duration = metadata?.video_duration;
      if (facts.videoBytes === undefined) return failure('no_file_size', 'The video’s size could not be read from its URL.');
      body.type = TYPES.video;
      body.file_size = facts.videoBytes;
      body.duration = typeof duration === 'number' ? duration : 0;
      // Video types before 233 carry the video's own URL in #action (233 alone uses #media).
      body.message = { '#action': content.payload.url, '#thumbnail': metadata?.[VIDEO_THUMBNAIL], '#tracking_data': tracking };
      break;
    }
    case 'structure': {
      if (Array.isArray(content.payload)) {
        body.type = TYPES.carousel;
        body.message = { '#txt': metadata?.[CAROUSEL_TEXT], '#tracking_data': tracking };
        body.carousel = { items: content.payload.map(carouselItem) };
      } else {
        const card = cardMessage(channel, content.payload);
        if (!card.ok) return card;
        body.type = card.value.type;
        body.message = { ...card.value.message, '#tracking_data': tracking };
      }
      break;
    }
    default:
      return failure('unsupported_content', `Content of type ${content.type} cannot be sent on ${channel.type} channels.`);
  }
  if (PROMOTIONAL_TYPES.has(body.type as number)) body.label = 'promotion';
  return { ok: true, value: body };
}
