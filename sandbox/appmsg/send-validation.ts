import { asArray, byteLength, charLength, isRecord, optNumber, optString, type JsonRecord } from '../shared/values.js';
import { ApiStatus } from './status.js';

// send_message / broadcast_message body rules from the fact sheet.

export const LIMITS = { text: 7000, senderName: 28, trackingData: 4000, caption: 768, json: 30 * 1024, fileName: 256, url: 2000 };
export const MESSAGE_TYPES = ['text', 'picture', 'video', 'file', 'contact', 'location', 'url', 'sticker', 'rich_media'];
const ACTION_TYPES = ['reply', 'open-url', 'location-picker', 'share-phone', 'none'];

const bad = (message: string): ApiStatus => new ApiStatus('badData', message);
const missing = (message: string): ApiStatus => new ApiStatus('missingData', message);

function requireString(body: JsonRecord, key: string): string {
  const v = optString(body[key]);
  if (v === undefined || v === '') throw missing(`${key} is missing`);
  return v;
}

function validateButtons(buttons: unknown, where: string, maxRows: number): void {
  const list = asArray(buttons);
  if (!list || list.length === 0) throw bad(`${where}.Buttons must be a non-empty array`);
  let cells = 0;
  list.forEach((b, i) => {
    if (!isRecord(b)) throw bad(`${where}.Buttons[${i}] must be an object`);
    const action = optString(b.ActionType) ?? 'reply';
    if (!ACTION_TYPES.includes(action)) throw bad(`${where}.Buttons[${i}].ActionType is invalid`);
    if (action !== 'none' && (optString(b.ActionBody) ?? '') === '') throw bad(`${where}.Buttons[${i}].ActionBody is required`);
    const columns = optNumber(b.Columns) ?? 6;
    const rows = optNumber(b.Rows) ?? 1;
    if (columns < 1 || columns > 6 || rows < 1 || rows > maxRows) throw bad(`${where}.Buttons[${i}] has invalid Columns/Rows`);
    cells += columns * rows;
  });
  // Portrait keyboards show at most 12 rows of 6 columns (rich media: 7 rows per group).
  if (where === 'keyboard' && cells > 6 * 12 * 4) throw bad('keyboard has too many buttons');
}

export function validateKeyboard(raw: unknown): void {
  // The official SDK sends `"keyboard": null` with every message, and the platform takes it.
  if (raw === undefined || raw === null) return;
  if (!isRecord(raw)) throw bad('keyboard must be an object');
  if (raw.Type !== 'keyboard') throw bad('keyboard.Type must be "keyboard"');
  validateButtons(raw.Buttons, 'keyboard', 2);
}

/** Validates the message part (type and its fields) shared by send_message and broadcast_message. */
export function validateMessage(body: JsonRecord, rawSize: number): void {
  if (rawSize > LIMITS.json) throw bad('message is too large (max 30KB JSON)');
  const sender = body.sender;
  if (!isRecord(sender) || (optString(sender.name) ?? '') === '') throw missing('sender.name is missing');
  if (charLength(optString(sender.name) ?? '') > LIMITS.senderName) throw bad('sender.name is too long (max 28)');
  const tracking = body.tracking_data;
  if (tracking !== undefined && (typeof tracking !== 'string' || charLength(tracking) > LIMITS.trackingData)) {
    throw bad('tracking_data must be a string of at most 4000 characters');
  }
  const minApi = optNumber(body.min_api_version) ?? 1;
  const type = requireString(body, 'type');
  if (!MESSAGE_TYPES.includes(type)) throw bad(`unknown message type ${type}`);
  switch (type) {
    case 'text': {
      const text = requireString(body, 'text');
      if (charLength(text) > LIMITS.text) throw bad('text is too long (max 7000)');
      break;
    }
    case 'picture': {
      requireString(body, 'media');
      const caption = optString(body.text);
      if (caption !== undefined && charLength(caption) > LIMITS.caption) throw bad('picture text is too long');
      break;
    }
    case 'video':
      requireString(body, 'media');
      if (optNumber(body.size) === undefined) throw missing('size is missing');
      break;
    case 'file': {
      requireString(body, 'media');
      if (optNumber(body.size) === undefined) throw missing('size is missing');
      const name = requireString(body, 'file_name');
      if (charLength(name) > LIMITS.fileName) throw bad('file_name is too long');
      break;
    }
    case 'contact': {
      const c = body.contact;
      if (!isRecord(c) || !optString(c.name) || !optString(c.phone_number)) throw missing('contact.name and contact.phone_number are required');
      break;
    }
    case 'location': {
      const l = body.location;
      const lat = isRecord(l) ? optNumber(l.lat) : undefined;
      const lon = isRecord(l) ? optNumber(l.lon) : undefined;
      if (lat === undefined || lon === undefined) throw missing('location.lat and location.lon are required');
      if (lat < -90 || lat > 90 || lon < -180 || lon > 180) throw bad('location is out of range');
      break;
    }
    case 'url': {
      const media = requireString(body, 'media');
      if (byteLength(media) > LIMITS.url) throw bad('media url is too long');
      break;
    }
    case 'sticker':
      if (optNumber(body.sticker_id) === undefined) throw missing('sticker_id is missing');
      break;
    case 'rich_media': {
      if (minApi < 2) throw new ApiStatus('apiVersionNotSupported', 'rich_media requires min_api_version 2 or higher');
      const rm = body.rich_media;
      if (!isRecord(rm)) throw missing('rich_media is missing');
      validateButtons(rm.Buttons, 'rich_media', 7);
      break;
    }
  }
  validateKeyboard(body.keyboard);
}
