import { ApiError, say } from '../../lib/errors.js';
import { CAPABILITIES } from '../../connectors/capabilities.js';
import type { ChannelType } from '../../schemas/channel-types.js';
import { LIMITS, type Card, type Content, type Metadata } from '../../schemas/content.js';
import { charCount } from './request.js';

/**
 * The rules that depend on the channel's type: what its platform can send (the capabilities
 * table) and, on socialnet_chat, the reserved metadata keys.
 */
export function checkCapabilities(type: ChannelType, content: Content): void {
  const caps = CAPABILITIES[type];
  if (!caps.contentTypes.includes(content.type)) {
    throw ApiError.invalid(
      'content.type',
      content.type,
      `A ${type} channel cannot send content of type '${content.type}'. It can send: ${caps.contentTypes.join(', ')}.`,
    );
  }
  if (content.type === 'text' && content.payload.length > caps.maxTextLength && charCount(content.payload) > caps.maxTextLength) {
    throw ApiError.invalid(
      'content.payload',
      content.payload,
      `Property 'content.payload' must be at most ${caps.maxTextLength} characters long on a ${type} channel.`,
    );
  }
  content.quick_replies?.forEach((reply, i) => {
    if (!caps.quickReplyKinds.includes(reply.type)) {
      const field = `content.quick_replies[${i}].type`;
      throw ApiError.invalid(
        field,
        reply.type,
        `A ${type} channel cannot show quick replies of type '${reply.type}'. It can show: ${caps.quickReplyKinds.join(', ')}.`,
      );
    }
  });
  if (content.type === 'structure') {
    const cards: Array<{ card: Card; field: string }> = Array.isArray(content.payload)
      ? content.payload.map((card, i) => ({ card, field: `content.payload[${i}]` }))
      : [{ card: content.payload, field: 'content.payload' }];
    if (cards.length > caps.maxCards) {
      throw ApiError.invalid('content.payload', null, `A ${type} channel can send at most ${caps.maxCards} cards in one message.`);
    }
    for (const { card, field } of cards) {
      const buttons = card.buttons ?? [];
      if (buttons.length > caps.maxButtonsPerCard) {
        throw ApiError.invalid(
          `${field}.buttons`,
          null,
          caps.maxButtonsPerCard === 0
            ? `A ${type} channel cannot send buttons.`
            : `A ${type} channel can send at most ${caps.maxButtonsPerCard} buttons per card.`,
        );
      }
      buttons.forEach((b, j) => {
        if (!caps.buttons.includes(b.type)) {
          throw ApiError.invalid(
            `${field}.buttons[${j}].type`,
            b.type,
            `A ${type} channel cannot send buttons of type '${b.type}'. It can send: ${caps.buttons.join(', ')}.`,
          );
        }
      });
    }
  }
}

/** Message tags of the socialnet_chat platform (current and legacy), in the lower case the service stores. */
export const MESSAGE_TAGS = [
  'account_update',
  'confirmed_event_update',
  'post_purchase_update',
  'human_agent',
  'customer_feedback',
  'non_promotional_subscription',
  'shipping_update',
  'reservation_update',
  'issue_resolution',
  'appointment_update',
  'game_event',
  'transportation_update',
  'feature_functionality_update',
  'ticket_update',
  'payment_update',
  'personal_finance_update',
  'pairing_update',
  'application_update',
  'business_productivity',
  'community_alert',
  'confirmed_event_reminder',
] as const;
export const MESSAGE_TYPES = ['response', 'update'] as const;

/** Tag set automatically on a socialnet_chat send by phone number before the user opted in. */
export const PHONE_OPT_IN_TAG = 'non_promotional_subscription';

function reservedString(metadata: Metadata, key: string): string | undefined {
  if (!(key in metadata)) return undefined;
  const value = metadata[key];
  const field = `metadata.${key}`;
  if (value === null) throw ApiError.invalid(field, null, say.cannotBeNull(field));
  if (typeof value !== 'string') throw ApiError.invalid(field, value, `Property '${field}' must be a string.`);
  return value;
}

/**
 * Reserved keys (socialnet_chat): platform_metadata at most 1000 characters; tag one of the
 * platform's tags, stored in lower case; type response|update, and not together with a tag.
 * Other keys, and every key on other channel types, are the client's own JSON.
 */
export function checkMetadata(type: ChannelType, metadata: Metadata | undefined): Metadata | undefined {
  if (!metadata || type !== 'socialnet_chat') return metadata;
  const out: Metadata = { ...metadata };
  const platformMetadata = reservedString(metadata, 'platform_metadata');
  if (platformMetadata !== undefined && charCount(platformMetadata) > LIMITS.platformMetadata) {
    throw ApiError.invalid(
      'metadata.platform_metadata',
      platformMetadata,
      `Property 'metadata.platform_metadata' must be at most ${LIMITS.platformMetadata} characters long.`,
    );
  }
  const tag = reservedString(metadata, 'tag');
  if (tag !== undefined) {
    const lower = tag.toLowerCase();
    if (!(MESSAGE_TAGS as readonly string[]).includes(lower))
      throw ApiError.invalid('metadata.tag', tag, say.notAllowedValue('metadata.tag', tag, MESSAGE_TAGS));
    out.tag = lower;
  }
  const messageType = reservedString(metadata, 'type');
  if (messageType !== undefined) {
    if (!(MESSAGE_TYPES as readonly string[]).includes(messageType))
      throw ApiError.invalid('metadata.type', messageType, say.notAllowedValue('metadata.type', messageType, MESSAGE_TYPES));
    if (tag !== undefined) throw ApiError.invalid('metadata.type', messageType, `Property 'metadata.type' cannot be set together with 'metadata.tag'.`);
  }
  return out;
}
