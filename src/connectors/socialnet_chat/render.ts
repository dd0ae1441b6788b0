import type { Button, Card, Content, Metadata, QuickReply } from '../../schemas/content.js';
import type { PlatformResult, Recipient } from '../connector.js';

/**
 * Neutral content -> the platform's Send API body, as pure functions.
 *
 * - text -> `message.text`; image/video/audio/file -> `message.attachment` with the URL
 *   (the platform downloads it);
 * - structure: one card with an image or item URL, or several cards -> generic template
 *   (several = horizontal scroll); one card with buttons only -> button template; one card
 *   with neither -> text;
 * - receipt -> receipt template; quick replies -> `message.quick_replies`;
 * - `metadata.platform_metadata` -> `message.metadata` (returned in the platform's echo);
 * - `metadata.tag` -> `messaging_type: MESSAGE_TAG` + tag, `metadata.type` -> RESPONSE / UPDATE.
 */
type Json = Record<string, unknown>;

/**
 * Retired tags that the specification still names, sent as the current tag that covers the same
 * use. `non_promotional_subscription` (set automatically on a send by phone number before the
 * user opted in) goes out as `account_update`. Retired tags without a successor
 * (customer_feedback, game_event, community_alert, business_productivity) are sent as given and
 * the platform refuses them (502 with its reason).
 */
export const RETIRED_TAGS: Readonly<Record<string, string>> = {
  non_promotional_subscription: 'account_update',
  shipping_update: 'post_purchase_update',
  payment_update: 'post_purchase_update',
  reservation_update: 'confirmed_event_update',
  appointment_update: 'confirmed_event_update',
  ticket_update: 'confirmed_event_update',
  transportation_update: 'confirmed_event_update',
  confirmed_event_reminder: 'confirmed_event_update',
  personal_finance_update: 'account_update',
  pairing_update: 'account_update',
  application_update: 'account_update',
  feature_functionality_update: 'account_update',
  issue_resolution: 'human_agent',
};

export function platformTag(tag: string): string {
  const lower = tag.toLowerCase();
  return (RETIRED_TAGS[lower] ?? lower).toUpperCase();
}

/** `messaging_type` (and tag) from the reserved metadata keys; the domain sets `type` when neither is given. */
export function renderMessaging(metadata: Metadata | undefined): { messaging_type: string; tag?: string } {
  const tag = metadata?.tag;
  if (typeof tag === 'string' && tag !== '') return { messaging_type: 'MESSAGE_TAG', tag: platformTag(tag) };
  return { messaging_type: metadata?.type === 'update' ? 'UPDATE' : 'RESPONSE' };
}

/** The platform's id when known; otherwise the checkbox reference; otherwise the phone number (customer matching). */
export function renderRecipient(r: Recipient): Json | null {
  if (r.externalId) return { id: r.externalId };
  if (r.userRef) return { user_ref: r.userRef };
  if (r.phoneNumber) {
    const out: Json = { phone_number: r.phoneNumber };
    if (r.firstName || r.lastName) {
      const name: Json = {};
      if (r.firstName) name.first_name = r.firstName;
      if (r.lastName) name.last_name = r.lastName;
      out.name = name;
    }
    return out;
  }
  return null;
}

export function renderButton(b: Button): Json {
  switch (b.type) {
    case 'url':
      return { type: 'web_url', url: b.payload, title: b.title };
    case 'postback':
      return { type: 'postback', title: b.title, payload: b.payload };
    case 'phone':
      return { type: 'phone_number', title: b.title, payload: b.payload };
  }
}

function element(card: Card): Json {
  const out: Json = { title: card.title ?? card.text ?? '' };
  if (card.title && card.text) out.subtitle = card.text;
  if (card.image_url) out.image_url = card.image_url;
  if (card.item_url) out.default_action = { type: 'web_url', url: card.item_url };
  if (card.buttons && card.buttons.length > 0) out.buttons = card.buttons.map(renderButton);
  return out;
}

function template(payload: Json): Json {
  return { attachment: { type: 'template', payload } };
}

function structure(payload: Card | Card[]): Json {
  if (Array.isArray(payload)) return template({ template_type: 'generic', elements: payload.map(element) });
  const card = payload;
  if (card.image_url || card.item_url) return template({ template_type: 'generic', elements: [element(card)] });
  const text = [card.title, card.text].filter((t): t is string => typeof t === 'string' && t !== '').join('\n');
  if (card.buttons && card.buttons.length > 0) return template({ template_type: 'button', text, buttons: card.buttons.map(renderButton) });
  return { text };
}

type ReceiptPayload = Extract<Content, { type: 'receipt' }>['payload'];

function receipt(r: ReceiptPayload): Json {
  const out: Json = {
    template_type: 'receipt',
    recipient_name: r.recipient_name,
    order_number: r.order_number,
    currency: r.currency,
    payment_method: r.payment_method,
    summary: r.summary,
  };
  if (r.order_url) out.order_url = r.order_url;
  // The platform takes the order time in seconds since the epoch.
  if (r.timestamp) out.timestamp = String(Math.floor(Date.parse(r.timestamp) / 1000));
  if (r.address) out.address = r.address;
  if (r.adjustments) out.adjustments = r.adjustments;
  if (r.elements) out.elements = r.elements;
  return template(out);
}

export function renderQuickReply(q: QuickReply): Json {
  switch (q.type) {
    case 'text': {
      const out: Json = { content_type: 'text', title: q.title, payload: q.payload };
      if (q.image_url) out.image_url = q.image_url;
      return out;
    }
    case 'email':
      return { content_type: 'user_email' };
    case 'phone_number':
      return { content_type: 'user_phone_number' };
    case 'location':
      // Removed by the platform in API v4.0; the capability table does not offer it.
      return { content_type: 'location' };
  }
}

/** The `message` object of a Send API call. */
export function renderMessage(content: Content, metadata: Metadata | undefined): PlatformResult<Json> {
  let message: Json;
  switch (content.type) {
    case 'text':
      message = { text: content.payload };
      break;
    case 'image':
    case 'video':
    case 'audio':
    case 'file':
      message = { attachment: { type: content.type, payload: { url: content.payload.url, is_reusable: true } } };
      break;
    case 'structure':
      message = structure(content.payload);
      break;
    case 'receipt':
      message = receipt(content.payload);
      break;
    case 'location':
      return { ok: false, retryable: false, code: 'unsupported', message: 'socialnet_chat cannot send location messages; they can only be received.' };
  }
  if (content.quick_replies && content.quick_replies.length > 0) message.quick_replies = content.quick_replies.map(renderQuickReply);
  const platformMetadata = metadata?.platform_metadata;
  if (typeof platformMetadata === 'string' && platformMetadata !== '') message.metadata = platformMetadata;
  return { ok: true, value: message };
}

/** Send Notification types as the platform's sender actions. */
export const SENDER_ACTIONS: Readonly<Record<string, string>> = { typing_on: 'typing_on', typing_off: 'typing_off', messages_read: 'mark_seen' };
