import { ApiError } from '../../lib/errors.js';
import { charCount } from '../../lib/text.js';
import type { ChannelType } from '../../schemas/channel-types.js';
import type { Card, Content, Metadata } from '../../schemas/content.js';
import { capabilitiesOf, definitionOf, type SentParts } from '../../channel-types/index.js';

/**
 * The rules that depend on the channel's type, from its definition: what its platform can send
 * (its capabilities) and the metadata keys its platform reserves. Answers the parts the platform
 * sends the content in, for types that count them (SMS).
 */
export function checkCapabilities(type: ChannelType, content: Content, metadata?: Metadata): SentParts | undefined {
  const caps = capabilitiesOf(type);
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
  return definitionOf(type).send.checkContent?.(content, metadata);
}

/**
 * Metadata keys the type's platform reserves are checked (and normalised) by its definition;
 * other keys, and every key on types that reserve none, are the client's own JSON.
 */
export function checkMetadata(type: ChannelType, metadata: Metadata | undefined): Metadata | undefined {
  const check = definitionOf(type).send.checkMetadata;
  return metadata && check ? check(metadata) : metadata;
}
