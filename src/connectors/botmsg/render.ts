import type { Button, Card, Content, QuickReply } from '../../schemas/content.js';
import type { PlatformResult } from '../connector.js';

/**
 * Neutral content -> Bot API method calls, as pure functions.
 *
 * - text -> sendMessage; image/video/audio/file -> sendPhoto/sendVideo/sendAudio/sendDocument
 *   with the URL (the platform downloads it); location -> sendLocation;
 * - structure (one card) -> sendPhoto with a caption when it has an image, else sendMessage;
 *   its buttons -> an inline keyboard, one button per row: url -> `url`, postback ->
 *   `callback_data`. Callback data holds at most 64 bytes, so a longer postback payload goes out
 *   as a reference to the button (`~btn:<index>`), which the service resolves from the stored
 *   message when the button is pressed;
 * - quick replies -> a one-time reply keyboard: text -> a button with the title (the tap comes
 *   back as that text), location -> `request_location`, phone_number -> `request_contact`.
 * A message cannot carry an inline keyboard and a reply keyboard at once.
 */
type Json = Record<string, unknown>;

export interface BotCall {
  method: string;
  params: Json;
}

export const BUTTON_REF_PREFIX = '~btn:';
const CALLBACK_DATA_MAX_BYTES = 64;
export const LOCATION_LABEL = 'Send location';
export const PHONE_LABEL = 'Share phone number';

/** The callback data of a postback button: its payload when it fits and cannot be mistaken for a reference. */
export function callbackData(payload: string, index: number): string {
  const fits = Buffer.byteLength(payload, 'utf8') <= CALLBACK_DATA_MAX_BYTES && !payload.startsWith(BUTTON_REF_PREFIX);
  return fits ? payload : `${BUTTON_REF_PREFIX}${index}`;
}

/** The button index a reference names, or null when the data is a payload. */
export function buttonRefOf(data: string): number | null {
  if (!data.startsWith(BUTTON_REF_PREFIX)) return null;
  const n = Number(data.slice(BUTTON_REF_PREFIX.length));
  return Number.isInteger(n) && n >= 0 ? n : null;
}

function inlineKeyboard(buttons: Button[]): Json {
  return {
    inline_keyboard: buttons.map((b, i) => [
      b.type === 'url' ? { text: b.title, url: b.payload } : { text: b.title, callback_data: callbackData(b.payload, i) },
    ]),
  };
}

function keyboardButton(q: QuickReply): Json {
  switch (q.type) {
    case 'text':
      return { text: q.title };
    case 'location':
      return { text: LOCATION_LABEL, request_location: true };
    case 'phone_number':
      return { text: PHONE_LABEL, request_contact: true };
    case 'email':
      return { text: 'E-mail' };
  }
}

function replyKeyboard(quickReplies: QuickReply[]): Json {
  return { keyboard: quickReplies.map((q) => [keyboardButton(q)]), one_time_keyboard: true, resize_keyboard: true };
}

function cardText(card: Card): string {
  return [card.title, card.text, card.item_url].filter((t): t is string => typeof t === 'string' && t !== '').join('\n');
}

const MEDIA_METHODS = {
  image: ['sendPhoto', 'photo'],
  video: ['sendVideo', 'video'],
  audio: ['sendAudio', 'audio'],
  file: ['sendDocument', 'document'],
} as const;

export function renderSend(chatId: string, content: Content): PlatformResult<BotCall> {
  let call: BotCall;
  let buttons: Button[] = [];
  switch (content.type) {
    case 'text':
      call = { method: 'sendMessage', params: { chat_id: chatId, text: content.payload } };
      break;
    case 'image':
    case 'video':
    case 'audio':
    case 'file': {
      const [method, field] = MEDIA_METHODS[content.type];
      call = { method, params: { chat_id: chatId, [field]: content.payload.url } };
      break;
    }
    case 'location':
      call = { method: 'sendLocation', params: { chat_id: chatId, latitude: content.payload.latitude, longitude: content.payload.longitude } };
      break;
    case 'structure': {
      const cards = Array.isArray(content.payload) ? content.payload : [content.payload];
      if (cards.length !== 1) return { ok: false, retryable: false, code: 'unsupported', message: 'botmsg shows one card per message.' };
      const card = cards[0]!;
      const text = cardText(card);
      // The platform refuses an empty text; the channel type refuses such a card at Send Message.
      if (!card.image_url && text.trim() === '')
        return { ok: false, retryable: false, code: 'empty_text', message: 'botmsg cannot send a card without an image, title or text.' };
      call = card.image_url
        ? { method: 'sendPhoto', params: { chat_id: chatId, photo: card.image_url, ...(text !== '' ? { caption: text } : {}) } }
        : { method: 'sendMessage', params: { chat_id: chatId, text } };
      buttons = card.buttons ?? [];
      break;
    }
    case 'receipt':
      return { ok: false, retryable: false, code: 'unsupported', message: 'botmsg cannot send receipts.' };
  }
  const quickReplies = content.quick_replies ?? [];
  if (buttons.length > 0 && quickReplies.length > 0) {
    return {
      ok: false,
      retryable: false,
      code: 'unsupported',
      message: 'botmsg cannot show buttons and quick replies on one message: a message has either an inline keyboard or a reply keyboard.',
    };
  }
  if (buttons.length > 0) call.params.reply_markup = inlineKeyboard(buttons);
  else if (quickReplies.length > 0) call.params.reply_markup = replyKeyboard(quickReplies);
  return { ok: true, value: call };
}
