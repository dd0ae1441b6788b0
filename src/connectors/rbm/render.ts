import { createHash } from 'node:crypto';
import type { Button, Card, Content, QuickReply } from '../../schemas/content.js';
import type { OutboundMessage, PlatformResult } from '../connector.js';

/**
 * A message as the platform's `agentMessages` body, as a pure function:
 * - text: `contentMessage.text`; image, video, audio, file: `contentInfo{fileUrl}` (the platform
 *   fetches the URL);
 * - location: a text with a view-location suggested action;
 * - structure: one card `richCard.standaloneCard`, several `richCard.carouselCard` (2 to 10);
 *   a card's title, text and image; its buttons as card suggestions (url: open URL, phone: dial,
 *   postback: a suggested reply carrying the payload), its `item_url` as an open-URL action;
 * - quick replies: suggested replies (text, with the payload as postback data) and the
 *   share-location action (location); the platform has no suggestion that asks for the user's
 *   e-mail address or phone number (its dial action calls a number, it does not ask for one), so
 *   those are refused (the channel type does not offer them; Send Message answers 422 first);
 * - the time to live as `ttl`.
 * The message id the platform keeps is a UUID made from the service's id (the same on every
 * try), so a retried send is ignored by the platform rather than shown twice.
 */
type Json = Record<string, unknown>;

/** The platform's message id for a message of the service: a UUID derived from the service's id. */
export function platformMessageId(messageId: string): string {
  const hex = createHash('sha256').update(`message:${messageId}`).digest('hex');
  // Version 4 layout (the platform checks the form only), variant bits 10.
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Text of the open-URL action a card's `item_url` becomes. */
export const ITEM_URL_TEXT = 'Open';
/** Text shown with a location. */
export const LOCATION_TEXT = 'Location';

function quickReply(reply: QuickReply): Json | null {
  if (reply.type === 'text') return { reply: { text: reply.title, postbackData: reply.payload } };
  if (reply.type === 'location') return { action: { text: 'Share location', postbackData: 'share_location', shareLocationAction: {} } };
  return null;
}

function button(b: Button): Json {
  switch (b.type) {
    case 'url':
      return { action: { text: b.title, postbackData: `open_url:${b.title}`, openUrlAction: { url: b.payload } } };
    case 'phone':
      return { action: { text: b.title, postbackData: `dial:${b.title}`, dialAction: { phoneNumber: b.payload } } };
    case 'postback':
      return { reply: { text: b.title, postbackData: b.payload } };
  }
}

/** The suggestions of one card: its buttons, then its item URL. */
export function cardSuggestions(card: Card): Json[] {
  const out = (card.buttons ?? []).map(button);
  if (card.item_url) out.push({ action: { text: ITEM_URL_TEXT, postbackData: 'open_item_url', openUrlAction: { url: card.item_url } } });
  return out;
}

function cardContent(card: Card): Json {
  const content: Json = {};
  if (card.title) content.title = card.title;
  if (card.text) content.description = card.text;
  if (card.image_url) content.media = { height: 'MEDIUM', contentInfo: { fileUrl: card.image_url } };
  const suggestions = cardSuggestions(card);
  if (suggestions.length > 0) content.suggestions = suggestions;
  return content;
}

function contentMessage(content: Content): PlatformResult<Json> {
  switch (content.type) {
    case 'text':
      return { ok: true, value: { text: content.payload } };
    case 'image':
    case 'video':
    case 'audio':
    case 'file':
      return { ok: true, value: { contentInfo: { fileUrl: content.payload.url } } };
    case 'location': {
      const { latitude, longitude } = content.payload;
      return {
        ok: true,
        value: {
          text: LOCATION_TEXT,
          suggestions: [{ action: { text: 'View location', postbackData: 'view_location', viewLocationAction: { latLong: { latitude, longitude } } } }],
        },
      };
    }
    case 'structure': {
      const cards = Array.isArray(content.payload) ? content.payload : [content.payload];
      if (cards.length === 1)
        return { ok: true, value: { richCard: { standaloneCard: { cardOrientation: 'VERTICAL', cardContent: cardContent(cards[0]!) } } } };
      return { ok: true, value: { richCard: { carouselCard: { cardWidth: 'MEDIUM', cardContents: cards.map(cardContent) } } } };
    }
    default:
      return { ok: false, retryable: false, code: 'unsupported', message: `An rbm message cannot carry content of type '${content.type}'.` };
  }
}

export function renderMessage(message: OutboundMessage): PlatformResult<Json> {
  const rendered = contentMessage(message.content);
  if (!rendered.ok) return rendered;
  const body = rendered.value;
  const replies: Json[] = [];
  for (const reply of message.content.quick_replies ?? []) {
    const rendered = quickReply(reply);
    if (rendered === null)
      return {
        ok: false,
        retryable: false,
        code: 'unsupported',
        message: `An rbm message cannot ask for the user's ${reply.type === 'email' ? 'e-mail address' : 'phone number'}.`,
      };
    replies.push(rendered);
  }
  if (replies.length > 0) body.suggestions = [...((body.suggestions as Json[] | undefined) ?? []), ...replies];
  const out: Json = { contentMessage: body };
  if (message.ttlMs !== undefined) out.ttl = `${Math.max(1, Math.ceil(message.ttlMs / 1000))}s`;
  return { ok: true, value: out };
}
