import type { ChannelContext, OutboundMessage, PlatformResult, Recipient } from '../connector.js';
import { fileNameFromUrl } from '../http.js';
import type { Card, Content } from '../../schemas/content.js';
import { FILE_NAME_MAX, TTL_MAX_S, TTL_MIN_S } from './options.js';

/**
 * A message as the partner API's `send_message` body. The content has passed the type's rules at
 * Send Message (channel-types/appmsg_business_messages.ts), so what is left here is the mapping:
 * - text: type 206 (a transactional text); text with quick replies: a list message (801) whose
 *   options are the quick replies' titles (the user's choice comes back as its title);
 * - image: 207; a card with an image, a text and a url button: 208; text and a url button: 209;
 *   a card with a text only: 206; an array of cards: a carousel (901);
 * - file: 220 with its name (at most 25 characters, the extension kept) and type from the URL;
 * - video: 230 with its size (read from the URL by the caller) and `metadata.video_duration`.
 * Every type that can be answered carries `#tracking_data` (our message id), which replies echo.
 * `seq` is our message id too: the platform echoes it in its reports.
 */
type Json = Record<string, unknown>;

export const TYPES = {
  text: 206,
  image: 207,
  imageTextButton: 208,
  textButton: 209,
  file: 220,
  video: 230,
  list: 801,
  carousel: 901,
} as const;

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

function cardMessage(card: Card): { type: number; message: Json } {
  const text = cardText(card);
  const button = card.buttons?.find((b) => b.type === 'url');
  if (card.image_url && button)
    return { type: TYPES.imageTextButton, message: { '#txt': text, '#img': card.image_url, '#caption': button.title, '#action': button.payload } };
  if (button) return { type: TYPES.textButton, message: { '#txt': text, '#caption': button.title, '#action': button.payload } };
  if (card.image_url) return { type: TYPES.image, message: { '#img': card.image_url } };
  return { type: TYPES.text, message: { '#txt': text } };
}

function carouselItem(card: Card): Json {
  const item: Json = {};
  const text = cardText(card);
  if (text) item['#txt'] = text;
  if (card.image_url) item['#img'] = card.image_url;
  const button = card.buttons?.find((b) => b.type === 'url');
  if (button) {
    item['#caption'] = button.title;
    item['#action'] = button.payload;
  }
  return item;
}

function failure(code: string, message: string): PlatformResult<never> {
  return { ok: false, retryable: false, code, message };
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
      if (choices.length > 0) {
        body.type = TYPES.list;
        body.message = { '#txt': content.payload, '#tracking_data': tracking };
        body.survey = { options: choices, list_message_ui_type: 0 };
      } else {
        body.type = TYPES.text;
        body.message = { '#txt': content.payload, '#tracking_data': tracking };
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
      const duration = message.metadata?.video_duration;
      if (facts.videoBytes === undefined) return failure('no_file_size', 'The video’s size could not be read from its URL.');
      body.type = TYPES.video;
      body.file_size = facts.videoBytes;
      body.duration = typeof duration === 'number' ? duration : 0;
      body.message = { '#media': content.payload.url, '#tracking_data': tracking };
      break;
    }
    case 'structure': {
      if (Array.isArray(content.payload)) {
        body.type = TYPES.carousel;
        body.message = { '#tracking_data': tracking };
        body.carousel = { items: content.payload.map(carouselItem) };
      } else {
        const card = cardMessage(content.payload);
        body.type = card.type;
        body.message = { ...card.message, '#tracking_data': tracking };
      }
      break;
    }
    default:
      return failure('unsupported_content', `Content of type ${content.type} cannot be sent on ${channel.type} channels.`);
  }
  return { ok: true, value: body };
}
