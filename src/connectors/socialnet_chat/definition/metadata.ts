import { ApiError, say } from '../../../lib/errors.js';
import { charCount } from '../../../lib/text.js';
import { LIMITS, type Metadata } from '../../../schemas/content.js';
import type { DirectSendDefaults } from '../../../channel-types/definition.js';
import { automaticMessageType } from './reply-window.js';

/** Message tags of the platform (current and legacy), in the lower case the service stores. */
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

export const RESERVED_METADATA = ['platform_metadata', 'tag', 'type'] as const;

/** Tag set automatically on a send by phone number before the user opted in (contract.md §3). */
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
 * Reserved keys: platform_metadata at most 1000 characters; tag one of the platform's tags,
 * stored in lower case; type response|update, and not together with a tag. Other keys are the
 * client's own JSON.
 */
export function checkMetadata(metadata: Metadata): Metadata {
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

const untyped = (metadata: Metadata | undefined) => metadata?.tag === undefined && metadata?.type === undefined;

/** Whether a send goes out under the opt-in tag: by phone number, to a user who has not opted in. */
const optInTagged = (metadata: Metadata | undefined, facts: { byPhoneNumber: boolean; contactKnown: boolean }) =>
  facts.byPhoneNumber && !facts.contactKnown && untyped(metadata);

/**
 * Before the platform is called: a send by phone number before the user opted in goes out under
 * the opt-in tag; without a tag or a type, the messaging window picks the type (reply-window.ts).
 */
export const directDefaults: DirectSendDefaults = {
  needsActivity: (metadata, facts) => !optInTagged(metadata, facts) && untyped(metadata),
  apply(metadata, facts, now, activity) {
    let out = metadata;
    if (optInTagged(out, facts)) out = { ...out, tag: PHONE_OPT_IN_TAG };
    if (untyped(out)) out = { ...out, type: automaticMessageType(now, activity ?? { lastInboundAt: null, lastSentAt: null }) };
    return out;
  },
};
