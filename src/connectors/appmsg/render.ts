import { createHash } from 'node:crypto';
import type { Button, Card, Content, QuickReply } from '../../schemas/content.js';
import { fileNameFromUrl } from '../http.js';
import type { Json } from './api.js';

/**
 * Neutral content -> the message part of `send_message`, as pure functions.
 *
 * - text -> `text`; image -> `picture`; video -> `video` and file -> `file` (their `size` is read
 *   from the URL by the connector); location -> `location {lat, lon}`;
 * - structure -> `rich_media`: each card one group of 6 x 7 cells (image, then title and text,
 *   then one row per button), several cards a horizontal scroll; postback buttons -> `reply`
 *   (ActionBody = payload), url buttons -> `open-url`;
 * - quick replies -> a `keyboard` below the message: text -> `reply` (ActionBody = payload),
 *   location -> `location-picker`, phone_number -> `share-phone`.
 *
 * A tapped `reply` button comes back as an ordinary text message whose text is its ActionBody,
 * and an `open-url` tap as its URL. So that the service can tell a tap from typed text, the
 * message carries `tracking_data` (returned with the user's next message) listing short hashes of
 * the quick-reply payloads (`q`), postback payloads (`p`) and URLs (`u`) it offered.
 */
export const TRACKING_PREFIX = 'pl1';
export const LOCATION_LABEL = 'Send location';
export const PHONE_LABEL = 'Share phone number';
const GROUP_ROWS = 7;
const GROUP_COLUMNS = 6;
const BG = '#FFFFFF';

/** A short hash of an offered ActionBody, as listed in tracking data. */
export function markOf(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12);
}

export interface OfferedMarks {
  q: string[];
  p: string[];
  u: string[];
}

export function trackingData(marks: OfferedMarks): string | undefined {
  const parts = (['q', 'p', 'u'] as const).filter((k) => marks[k].length > 0).map((k) => `${k}:${[...new Set(marks[k])].join(',')}`);
  return parts.length === 0 ? undefined : [TRACKING_PREFIX, ...parts].join('|');
}

/** The marks of the bot's last message, read back from a user message's `tracking_data`. */
export function marksOf(tracking: unknown): OfferedMarks {
  const marks: OfferedMarks = { q: [], p: [], u: [] };
  if (typeof tracking !== 'string' || !tracking.startsWith(`${TRACKING_PREFIX}|`)) return marks;
  for (const part of tracking.split('|').slice(1)) {
    const [key, list] = part.split(':');
    if ((key === 'q' || key === 'p' || key === 'u') && list) marks[key] = list.split(',');
  }
  return marks;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function cardButton(b: Button, marks: OfferedMarks): Json {
  const base = { Columns: GROUP_COLUMNS, Rows: 1, Text: `<font color="#7F00FF">${escapeHtml(b.title)}</font>`, TextSize: 'medium' };
  if (b.type === 'url') {
    marks.u.push(markOf(b.payload));
    return { ...base, ActionType: 'open-url', ActionBody: b.payload };
  }
  marks.p.push(markOf(b.payload));
  return { ...base, ActionType: 'reply', ActionBody: b.payload };
}

/** One card as a group of 7 rows: the image, the title and text, one row per button. */
function cardCells(card: Card, marks: OfferedMarks): Json[] {
  const buttons = card.buttons ?? [];
  const free = GROUP_ROWS - buttons.length;
  const hasImage = card.image_url !== undefined;
  const hasText = card.title !== undefined || card.text !== undefined;
  // A card with neither image nor text still fills its group, with an empty text cell.
  const textRows = hasImage ? (hasText ? (free >= 4 ? 2 : 1) : 0) : free;
  const imageRows = free - textRows;
  const action = card.item_url ? { ActionType: 'open-url', ActionBody: card.item_url } : { ActionType: 'none' };
  if (card.item_url) marks.u.push(markOf(card.item_url));
  const cells: Json[] = [];
  if (hasImage) cells.push({ Columns: GROUP_COLUMNS, Rows: imageRows, Image: card.image_url, ...action });
  if (textRows > 0) {
    const text = [card.title ? `<b>${escapeHtml(card.title)}</b>` : '', card.text ? escapeHtml(card.text) : ''].filter((t) => t !== '').join('<br>');
    cells.push({ Columns: GROUP_COLUMNS, Rows: textRows, Text: text, TextVAlign: 'middle', TextHAlign: 'left', ...action });
  }
  return [...cells, ...buttons.map((b) => cardButton(b, marks))];
}

function keyboardButton(q: QuickReply, marks: OfferedMarks): Json {
  const base = { Columns: GROUP_COLUMNS, Rows: 1, BgColor: BG, Silent: false };
  switch (q.type) {
    case 'text':
      marks.q.push(markOf(q.payload));
      return { ...base, ActionType: 'reply', ActionBody: q.payload, Text: escapeHtml(q.title), ...(q.image_url ? { Image: q.image_url } : {}) };
    case 'location':
      return { ...base, ActionType: 'location-picker', ActionBody: 'location', Text: LOCATION_LABEL };
    case 'phone_number':
      return { ...base, ActionType: 'share-phone', ActionBody: 'phone', Text: PHONE_LABEL };
    default:
      return { ...base, ActionType: 'none', Text: q.type };
  }
}

/** What a send needs besides the rendered body: the file whose size the platform wants. */
export interface RenderedMessage {
  body: Json;
  sizeOf?: { url: string; kind: 'video' | 'file' };
}

/** The lowest client API version that shows the message (rich media 2, share-phone and location-picker 3). */
function minApiVersion(content: Content): number {
  const pickers = (content.quick_replies ?? []).some((q) => q.type === 'location' || q.type === 'phone_number');
  if (pickers) return 3;
  return content.type === 'structure' ? 2 : 1;
}

export function renderMessage(content: Content): RenderedMessage {
  const marks: OfferedMarks = { q: [], p: [], u: [] };
  let body: Json;
  let sizeOf: RenderedMessage['sizeOf'];
  switch (content.type) {
    case 'text':
      body = { type: 'text', text: content.payload };
      break;
    case 'image':
      body = { type: 'picture', media: content.payload.url, text: '' };
      break;
    case 'video':
      body = { type: 'video', media: content.payload.url };
      sizeOf = { url: content.payload.url, kind: 'video' };
      break;
    case 'file':
      body = { type: 'file', media: content.payload.url, file_name: fileNameFromUrl(content.payload.url, 'file').slice(0, 256) };
      sizeOf = { url: content.payload.url, kind: 'file' };
      break;
    case 'location':
      body = { type: 'location', location: { lat: content.payload.latitude, lon: content.payload.longitude } };
      break;
    case 'structure': {
      const cards = Array.isArray(content.payload) ? content.payload : [content.payload];
      const first = cards[0];
      body = {
        type: 'rich_media',
        rich_media: {
          Type: 'rich_media',
          ButtonsGroupColumns: GROUP_COLUMNS,
          ButtonsGroupRows: GROUP_ROWS,
          BgColor: BG,
          Buttons: cards.flatMap((c) => cardCells(c, marks)),
        },
        alt_text: [first?.title, first?.text].filter((t) => t !== undefined).join(': ') || 'A message with buttons',
      };
      break;
    }
    default:
      // The type's capabilities let nothing else through.
      body = { type: 'text', text: '' };
  }
  const quick = content.quick_replies ?? [];
  if (quick.length > 0) body.keyboard = { Type: 'keyboard', DefaultHeight: false, BgColor: BG, Buttons: quick.map((q) => keyboardButton(q, marks)) };
  body.min_api_version = minApiVersion(content);
  const tracking = trackingData(marks);
  if (tracking !== undefined) body.tracking_data = tracking;
  return sizeOf ? { body, sizeOf } : { body };
}
