import { asArray, charLength, isRecord, optNumber, optString, type JsonRecord } from '../shared/values.js';
import { Rejection } from './status.js';
import type { AbTemplate } from './state.js';

// Request rules of the partner API as far as they are public (spec v11.3 per a public integration).

export const TTL_MIN = 30;
export const TTL_MAX = 1_209_600;
export const DEFAULT_TTL = 1_209_600;

const TEXT = [206, 225, 306];
const IMAGE = [7, 107, 207, 307];
const IMAGE_TEXT_BUTTON = [8, 108, 208, 210];
const TEXT_BUTTON = [9, 109, 209];
const FILE = [220, 221, 222, 223, 224];
const VIDEO = [230, 231, 232, 233];
const LIST = [801, 802];
const CAROUSEL = [901];
const TEMPLATE = [1701, 1702];
export const KNOWN_TYPES = [...TEXT, ...IMAGE, ...IMAGE_TEXT_BUTTON, ...TEXT_BUTTON, ...FILE, ...VIDEO, ...LIST, ...CAROUSEL, ...TEMPLATE];
/** Types whose messages the user can reply to: they need #tracking_data. */
const REPLYABLE = [206, 207, 208, 209, 210, 220, 225, 306, 307, 230, 231, 232, 233, 801, 802, 901];
/** Types that must not carry #tracking_data. */
const NOT_REPLYABLE = [7, 8, 9, 107, 108, 109];
export const SESSION_TYPES = [306, 307];
/** Types billed as promotions (a public integration's type table): they need `label: promotion`. */
export const PROMOTIONAL_TYPES = [225, 7, 107, 207, 8, 108, 208, 210, 9, 109, 209, 230, 231, 232, 233, 901];

/** A carousel card's limits (a public integration of the partner API, spec v11.3). */
const CARD_TITLE = { min: 2, max: 38 };
const PRIMARY_LABEL_MAX = 10;
const SECONDARY_LABEL_MAX = 12;

const bad = (name: ConstructorParameters<typeof Rejection>[0], detail: string): Rejection => new Rejection(name, detail);

function required(message: JsonRecord, key: string): string {
  const v = optString(message[key]);
  if (v === undefined || v === '') throw bad('SRVC_BAD_PARAMETERS', `${key} is required`);
  return v;
}

function text(message: JsonRecord): void {
  const t = required(message, '#txt');
  if (charLength(t) > 1000) throw bad('SRVC_BAD_DATA', '#txt longer than 1000 characters');
}

function caption(message: JsonRecord): void {
  if (charLength(required(message, '#caption')) > 30) throw bad('SRVC_BAD_PARAMETERS', '#caption longer than 30 characters');
}

function button(value: unknown, where: string, labelMax: number): void {
  if (!isRecord(value)) throw bad('CAROUSEL_VALIDATION_ERROR', `${where} is required`);
  const label = optString(value.label) ?? '';
  if (label === '' || charLength(label) > labelMax) throw bad('CAROUSEL_VALIDATION_ERROR', `${where}.label must have 1 to ${labelMax} characters`);
  if ((optString(value.actionUrl) ?? '') === '') throw bad('CAROUSEL_VALIDATION_ERROR', `${where}.actionUrl is required`);
}

function carouselItem(item: unknown, i: number): void {
  const where = `carousel.items[${i}]`;
  if (!isRecord(item)) throw bad('CAROUSEL_VALIDATION_ERROR', `${where} must be an object`);
  const title = optString(item.title) ?? '';
  if (charLength(title) < CARD_TITLE.min || charLength(title) > CARD_TITLE.max)
    throw bad('CAROUSEL_VALIDATION_ERROR', `${where}.title must have ${CARD_TITLE.min} to ${CARD_TITLE.max} characters`);
  if ((optString(item.imageUrl) ?? '') === '') throw bad('CAROUSEL_VALIDATION_ERROR', `${where}.imageUrl is required`);
  button(item.primaryButton, `${where}.primaryButton`, PRIMARY_LABEL_MAX);
  if (item.secondaryButton !== undefined) button(item.secondaryButton, `${where}.secondaryButton`, SECONDARY_LABEL_MAX);
}

export function validateMessage(type: number, body: JsonRecord, templates: Map<string, AbTemplate>): JsonRecord {
  // A template's text is the approved template's: its request names it and has no message object.
  const message = isRecord(body.message) ? body.message : TEMPLATE.includes(type) ? {} : undefined;
  if (!message) throw bad('SRVC_BAD_PARAMETERS', 'message is required');
  const tracking = message['#tracking_data'];
  if (REPLYABLE.includes(type) && (typeof tracking !== 'string' || tracking === ''))
    throw bad('SRVC_BAD_PARAMETERS', '#tracking_data is required for this type');
  if (NOT_REPLYABLE.includes(type) && tracking !== undefined) throw bad('SRVC_BAD_PARAMETERS', '#tracking_data is not allowed for this type');

  if (TEXT.includes(type)) text(message);
  else if (IMAGE.includes(type)) required(message, '#img');
  else if (IMAGE_TEXT_BUTTON.includes(type)) {
    text(message);
    required(message, '#img');
    caption(message);
    required(message, '#action');
  } else if (TEXT_BUTTON.includes(type)) {
    text(message);
    caption(message);
    required(message, '#action');
  } else if (FILE.includes(type)) {
    const name = required(message, '#fileName');
    if (charLength(name) > 25) throw bad('SRVC_BAD_FILE_NAME_LENGTH', '#fileName longer than 25 characters');
    required(message, '#action');
    if (optString(body.file_type) === undefined && optString(message.file_type) === undefined) throw bad('SRVC_BAD_PARAMETERS', 'file_type is required');
  } else if (VIDEO.includes(type)) {
    // 230-232 carry the video's URL in #action; 233 carries it in #media and a button's URL in #action.
    if (type === 233) required(message, '#media');
    required(message, '#action');
    const size = optNumber(body.file_size ?? message.file_size);
    if (size === undefined) throw bad('SRVC_BAD_PARAMETERS', 'file_size is required');
    if (size > 200 * 1024 * 1024) throw bad('SRVC_BAD_FILE_SIZE', 'file_size above 200 MB');
    const duration = optNumber(body.duration ?? message.duration);
    if (duration === undefined) throw bad('SRVC_BAD_PARAMETERS', 'duration is required');
    if (duration > 600) throw bad('SRVC_BAD_DURATION', 'duration above 600 s');
    const thumb = required(message, '#thumbnail');
    if (thumb.length > 1000) throw bad('SRVC_BAD_THUMBNAIL', '#thumbnail longer than 1000 characters');
    if (type !== 230) text(message);
    if (type === 232 || type === 233) caption(message);
  } else if (LIST.includes(type)) {
    const survey = isRecord(body.survey) ? body.survey : isRecord(message.survey) ? message.survey : {};
    const options = asArray(survey.options) ?? [];
    if (options.length < 2 || options.length > 10) throw bad('LIST_VALIDATION_ERROR', 'survey.options must have 2 to 10 entries');
    const title = optString(message['#txt']);
    if (title !== undefined && charLength(title) > 85) throw bad('LIST_VALIDATION_ERROR', 'list title longer than 85 characters');
  } else if (CAROUSEL.includes(type)) {
    const carousel = isRecord(body.carousel) ? body.carousel : isRecord(message.carousel) ? message.carousel : {};
    const items = asArray(carousel.items) ?? [];
    if (items.length < 2 || items.length > 5) throw bad('CAROUSEL_VALIDATION_ERROR', 'carousel.items must have 2 to 5 entries');
    // The carousel's own text, then each card: a title, an image and a primary button.
    text(message);
    items.forEach((item, i) => carouselItem(item, i));
  } else if (TEMPLATE.includes(type)) {
    const id = optString(body.templateId ?? message.templateId);
    const lang = optString(body.templateLang ?? message.templateLang);
    const template = id === undefined ? undefined : templates.get(id);
    if (!template || (lang !== undefined && lang !== template.lang)) throw bad('TEMPLATE_NOT_FOUND', 'unknown templateId / templateLang');
    const params = isRecord(body.templateParams) ? body.templateParams : isRecord(message.templateParams) ? message.templateParams : {};
    for (const name of template.params) {
      const v = optString(params[name]);
      if (v === undefined) throw bad('TEMPLATE_VALIDATION_ERROR', `template parameter ${name} is missing`);
      if (charLength(v) > 125) throw bad('TEMPLATE_VALIDATION_ERROR', `template parameter ${name} longer than 125 characters`);
    }
  }
  return message;
}
