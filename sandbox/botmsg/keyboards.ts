import { asArray, byteLength, isRecord, maybeJson, optString, type JsonRecord } from '../shared/values.js';
import { badRequest } from './errors.js';

// reply_markup validation: inline keyboards, reply keyboards, remove_keyboard, force_reply.

const INLINE_ACTIONS = [
  'callback_data',
  'url',
  'web_app',
  'login_url',
  'switch_inline_query',
  'switch_inline_query_current_chat',
  'switch_inline_query_chosen_chat',
  'copy_text',
  'callback_game',
  'pay',
];

function validUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return ['http:', 'https:'].includes(u.protocol);
  } catch {
    return false;
  }
}

function validateInline(rows: unknown[]): void {
  for (const row of rows) {
    const buttons = asArray(row);
    if (!buttons) throw badRequest("can't parse inline keyboard button: InlineKeyboardButton row must be an Array");
    for (const b of buttons) {
      if (!isRecord(b)) throw badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Object");
      const text = optString(b.text);
      if (text === undefined) throw badRequest('can\'t parse inline keyboard button: Field "text" must be of type String');
      const actions = INLINE_ACTIONS.filter((a) => b[a] !== undefined);
      if (actions.length === 0) throw badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
      if (actions.length > 1) throw badRequest("can't parse inline keyboard button: exactly one of the optional fields must be used");
      if (b.callback_data !== undefined) {
        const data = optString(b.callback_data) ?? '';
        const len = byteLength(data);
        if (len < 1 || len > 64) throw badRequest('BUTTON_DATA_INVALID');
      }
      if (b.url !== undefined) {
        const url = optString(b.url) ?? '';
        if (!validUrl(url)) throw badRequest(`inline keyboard button URL '${url}' is invalid: Wrong HTTP URL`);
      }
      if (b.style !== undefined && !['danger', 'success', 'primary'].includes(String(b.style))) {
        throw badRequest("can't parse inline keyboard button: unsupported button style");
      }
    }
  }
}

function validateReplyKeyboard(markup: JsonRecord, rows: unknown[]): void {
  for (const row of rows) {
    const buttons = asArray(row);
    if (!buttons) throw badRequest("can't parse keyboard button: KeyboardButton row must be an Array");
    for (const b of buttons) {
      const text = typeof b === 'string' ? b : isRecord(b) ? optString(b.text) : undefined;
      if (text === undefined) throw badRequest('can\'t parse keyboard button: Field "text" must be of type String');
      if (text === '') throw badRequest('keyboard button text is empty');
    }
  }
  const placeholder = markup.input_field_placeholder;
  if (placeholder !== undefined) {
    const p = optString(placeholder) ?? '';
    if (p.length < 1 || p.length > 64) throw badRequest('input field placeholder must be 1-64 characters');
  }
}

/** Returns the parsed markup, or undefined when none was given. */
export function parseReplyMarkup(raw: unknown): JsonRecord | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const markup = maybeJson(raw);
  if (!isRecord(markup)) throw badRequest("can't parse reply keyboard markup JSON object");
  if (markup.inline_keyboard !== undefined) {
    const rows = asArray(markup.inline_keyboard);
    if (!rows) throw badRequest("can't parse reply keyboard markup JSON object");
    validateInline(rows);
    return markup;
  }
  if (markup.keyboard !== undefined) {
    const rows = asArray(markup.keyboard);
    if (!rows) throw badRequest("can't parse reply keyboard markup JSON object");
    validateReplyKeyboard(markup, rows);
    return markup;
  }
  if (markup.remove_keyboard === true || markup.force_reply === true) return markup;
  throw badRequest("can't parse reply keyboard markup JSON object");
}

/** callback_data values of an inline keyboard, by [row][column]. */
export function inlineButton(markup: unknown, row: number, column: number): JsonRecord | undefined {
  if (!isRecord(markup)) return undefined;
  const r = asArray(asArray(markup.inline_keyboard)?.[row]);
  const b = r?.[column];
  return isRecord(b) ? b : undefined;
}

export function findInlineButtonByData(markup: unknown, data: string): JsonRecord | undefined {
  if (!isRecord(markup)) return undefined;
  for (const row of asArray(markup.inline_keyboard) ?? []) {
    for (const b of asArray(row) ?? []) if (isRecord(b) && b.callback_data === data) return b;
  }
  return undefined;
}
