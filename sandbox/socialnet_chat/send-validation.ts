import { asArray, asRecord, charLength, isRecord, maybeJson, optString, phoneDigits, type JsonRecord } from '../shared/values.js';
import { ApiError, paramError } from './errors.js';

// Validation of Send API bodies with the limits of the fact sheet. Messages follow the platform's
// "(#100) ..." style; exact wording of rarely seen errors is approximated.

export type SendRecipient =
  { kind: 'id'; psid: string } | { kind: 'user_ref'; userRef: string } | { kind: 'phone'; phoneNumber: string; digits: string; name: JsonRecord | null };

export interface ValidatedSend {
  recipient: SendRecipient;
  senderAction: string | null;
  messagingType: string | null;
  tag: string | null;
  notificationType: string;
  message: JsonRecord | null;
}

const MESSAGING_TYPES = ['RESPONSE', 'UPDATE', 'MESSAGE_TAG', 'UTILITY'];
const SENDER_ACTIONS = ['mark_seen', 'typing_on', 'typing_off', 'react', 'unreact'];
const NOTIFICATION_TYPES = ['REGULAR', 'SILENT_PUSH', 'NO_PUSH'];
const MEDIA_TYPES = ['image', 'audio', 'video', 'file'];
const BUTTON_TYPES = ['web_url', 'postback', 'phone_number', 'account_link', 'account_unlink', 'game_play'];

export const LIMITS = {
  text: 2000,
  metadata: 1000,
  quickReplies: 13,
  quickReplyTitle: 20,
  payload: 1000,
  buttonTitle: 20,
  buttonTemplateText: 640,
  buttons: 3,
  genericElements: 10,
  elementTitle: 80,
  elementSubtitle: 80,
} as const;

function oneOf(name: string, allowed: readonly string[], got: string): ApiError {
  return paramError(`Param ${name} must be one of {${allowed.map((a) => a.toUpperCase()).join(', ')}} - got "${got}"`);
}

function maxLen(name: string, value: string, limit: number): void {
  if (charLength(value) > limit) throw paramError(`Length of param ${name} must be less than or equal to ${limit}`);
}

function parseRecipient(raw: unknown): SendRecipient {
  const value = maybeJson(raw);
  if (value === undefined || value === null || value === '') throw paramError('The parameter recipient is required');
  if (!isRecord(value)) throw paramError('param recipient must be a JSON object');
  const id = optString(value.id);
  if (id !== undefined && id !== '') return { kind: 'id', psid: id };
  const userRef = optString(value.user_ref);
  if (userRef !== undefined && userRef !== '') return { kind: 'user_ref', userRef };
  const phone = optString(value.phone_number);
  if (phone !== undefined && phone !== '') {
    const digits = phoneDigits(phone);
    if (digits.length < 6 || digits.length > 15) throw paramError('Invalid phone number', 2018022);
    return { kind: 'phone', phoneNumber: phone, digits, name: isRecord(value.name) ? value.name : null };
  }
  if (value.post_id !== undefined || value.comment_id !== undefined) {
    throw paramError('Private replies (post_id / comment_id) are not simulated by this sandbox');
  }
  throw paramError('param recipient must be non-empty.');
}

function validateButton(button: unknown, path: string): void {
  if (!isRecord(button)) throw paramError(`param ${path} must be an object`);
  const type = optString(button.type) ?? '';
  if (!BUTTON_TYPES.includes(type)) throw oneOf(`${path}[type]`, BUTTON_TYPES, type);
  const title = optString(button.title);
  if (type !== 'account_unlink' && type !== 'account_link') {
    if (title === undefined || title === '') throw paramError(`param ${path}[title] must be a non-empty UTF-8 encoded string`);
    maxLen(`${path}[title]`, title, LIMITS.buttonTitle);
  }
  if (type === 'web_url' || type === 'account_link') {
    const url = optString(button.url);
    if (url === undefined || !/^https?:\/\//i.test(url)) throw paramError(`param ${path}[url] must be a valid URL`);
  }
  if (type === 'postback') {
    const payload = optString(button.payload);
    if (payload === undefined || payload === '') throw paramError(`param ${path}[payload] must be a non-empty UTF-8 encoded string`);
    maxLen(`${path}[payload]`, payload, LIMITS.payload);
  }
  if (type === 'phone_number') {
    const payload = optString(button.payload);
    if (payload === undefined || !payload.startsWith('+')) throw paramError(`param ${path}[payload] must be a phone number starting with +`);
  }
}

export function validateButtons(raw: unknown, path: string, min: number, max: number): void {
  const buttons = asArray(raw);
  if (!buttons) {
    if (min === 0 && raw === undefined) return;
    throw paramError(`param ${path} must be an array`);
  }
  if (buttons.length < min || buttons.length > max) {
    throw paramError(`param ${path} must have between ${min} and ${max} elements`);
  }
  buttons.forEach((b, i) => validateButton(b, `${path}[${i}]`));
}

function validateTemplate(payload: JsonRecord): void {
  const base = 'message[attachment][payload]';
  const type = optString(payload.template_type) ?? '';
  if (type === '') throw paramError(`param ${base}[template_type] is required`);
  if (type === 'button') {
    const text = optString(payload.text);
    if (text === undefined || text === '') throw paramError(`param ${base}[text] must be a non-empty UTF-8 encoded string`);
    maxLen(`${base}[text]`, text, LIMITS.buttonTemplateText);
    validateButtons(payload.buttons, `${base}[buttons]`, 1, LIMITS.buttons);
    return;
  }
  if (type === 'generic') {
    const elements = asArray(payload.elements);
    if (!elements || elements.length === 0) throw paramError(`param ${base}[elements] must be a non-empty array`);
    if (elements.length > LIMITS.genericElements) {
      throw paramError(`param ${base}[elements] must have at most ${LIMITS.genericElements} elements`);
    }
    elements.forEach((el, i) => {
      const p = `${base}[elements][${i}]`;
      if (!isRecord(el)) throw paramError(`param ${p} must be an object`);
      const title = optString(el.title);
      if (title === undefined || title === '') throw paramError(`param ${p}[title] must be a non-empty UTF-8 encoded string`);
      maxLen(`${p}[title]`, title, LIMITS.elementTitle);
      const subtitle = optString(el.subtitle);
      if (subtitle !== undefined) maxLen(`${p}[subtitle]`, subtitle, LIMITS.elementSubtitle);
      validateButtons(el.buttons, `${p}[buttons]`, 0, LIMITS.buttons);
      if (el.default_action !== undefined) {
        const da = asRecord(el.default_action);
        if (optString(da.type) !== 'web_url' || optString(da.url) === undefined) {
          throw paramError(`param ${p}[default_action] must be a web_url action with a url`);
        }
      }
    });
    return;
  }
  // Other template types (media, receipt, ...) are accepted as given.
}

function validateQuickReplies(raw: unknown): void {
  const list = asArray(raw);
  if (!list) throw paramError('param message[quick_replies] must be an array');
  if (list.length > LIMITS.quickReplies) {
    throw paramError(`param message[quick_replies] must have at most ${LIMITS.quickReplies} elements`);
  }
  list.forEach((qr, i) => {
    const p = `message[quick_replies][${i}]`;
    if (!isRecord(qr)) throw paramError(`param ${p} must be an object`);
    const type = optString(qr.content_type) ?? '';
    if (type === '') throw paramError(`param ${p}[content_type] is required`);
    if (type === 'location') throw paramError('Location Quick Reply is now deprecated on API 4.0.');
    if (!['text', 'user_phone_number', 'user_email'].includes(type)) {
      throw oneOf(`${p}[content_type]`, ['text', 'user_phone_number', 'user_email'], type);
    }
    if (type === 'text') {
      const title = optString(qr.title);
      if ((title === undefined || title === '') && qr.image_url === undefined) {
        throw paramError(`param ${p}[title] must be a non-empty UTF-8 encoded string`);
      }
      const payload = optString(qr.payload);
      if (payload === undefined || payload === '') throw paramError(`param ${p}[payload] must be a non-empty UTF-8 encoded string`);
      maxLen(`${p}[payload]`, payload, LIMITS.payload);
    }
  });
}

function validateMessage(raw: unknown, hasUpload: boolean): JsonRecord {
  const value = maybeJson(raw);
  if (!isRecord(value)) throw paramError('param message must be a JSON object');
  const text = value.text;
  const attachment = maybeJson(value.attachment);
  if (text !== undefined && attachment !== undefined) throw paramError('Only one of text or attachment can be specified');
  if (text === undefined && attachment === undefined) {
    throw paramError('Message cannot be empty, must provide valid attachment or text');
  }
  if (text !== undefined) {
    if (typeof text !== 'string' || text === '') throw paramError('Message cannot be empty, must provide valid attachment or text');
    maxLen('message[text]', text, LIMITS.text);
  }
  if (attachment !== undefined) {
    if (!isRecord(attachment)) throw paramError('param message[attachment] must be a JSON object');
    const type = optString(attachment.type) ?? '';
    if (![...MEDIA_TYPES, 'template'].includes(type)) {
      throw oneOf('message[attachment][type]', [...MEDIA_TYPES, 'template'], type);
    }
    const payload = asRecord(attachment.payload);
    if (type === 'template') {
      validateTemplate(payload);
    } else if (!hasUpload) {
      const url = optString(payload.url);
      const attachmentId = optString(payload.attachment_id);
      if ((url === undefined || url === '') && (attachmentId === undefined || attachmentId === '')) {
        throw paramError('param message[attachment][payload] must have a url or an attachment_id');
      }
    }
    value.attachment = { ...attachment, payload };
  }
  const metadata = value.metadata;
  if (metadata !== undefined) {
    if (typeof metadata !== 'string') throw paramError('param message[metadata] must be a UTF-8 encoded string');
    maxLen('message[metadata]', metadata, LIMITS.metadata);
  }
  if (value.quick_replies !== undefined) validateQuickReplies(value.quick_replies);
  return value;
}

export function validateSend(params: Record<string, unknown>, acceptedTags: readonly string[], hasUpload: boolean): ValidatedSend {
  const recipient = parseRecipient(params.recipient);
  const notificationType = (optString(params.notification_type) ?? 'REGULAR').toUpperCase();
  if (!NOTIFICATION_TYPES.includes(notificationType)) throw oneOf('notification_type', NOTIFICATION_TYPES, notificationType);

  const senderAction = optString(params.sender_action);
  if (senderAction !== undefined) {
    if (params.message !== undefined) throw paramError('Cannot send message and sender_action in the same request');
    const action = senderAction.toLowerCase();
    if (!SENDER_ACTIONS.includes(action)) throw oneOf('sender_action', SENDER_ACTIONS, senderAction);
    return { recipient, senderAction: action, messagingType: null, tag: null, notificationType, message: null };
  }
  if (params.message === undefined) throw paramError('Must send either message or state');

  let tag = optString(params.tag)?.toUpperCase() ?? null;
  let messagingType = optString(params.messaging_type)?.toUpperCase() ?? null;
  if (messagingType === null && tag !== null) messagingType = 'MESSAGE_TAG';
  if (messagingType === null) throw paramError('The parameter messaging_type is required');
  if (!MESSAGING_TYPES.includes(messagingType)) throw oneOf('messaging_type', MESSAGING_TYPES, messagingType);
  if (messagingType === 'MESSAGE_TAG') {
    if (tag === null) throw paramError('Tag is required for messaging_type MESSAGE_TAG');
    if (!acceptedTags.includes(tag)) throw oneOf('tag', acceptedTags, tag);
  } else {
    tag = null;
  }
  const message = validateMessage(params.message, hasUpload);
  return { recipient, senderAction: null, messagingType, tag, notificationType, message };
}
