import type { ChannelType } from '../schemas/channel-types.js';
import type { MessageFailedCode } from '../schemas/message-status.js';

/**
 * Which `message_failed` code a platform's refusal of a send amounts to. Failures keep the
 * platform's own code (`PlatformFailure.code`); this reads it as 2 (the user blocks the sender)
 * or 3 (the platform knows no such user). Everything else (refusals, rate limits, outages,
 * timeouts) is 1. Classified by code only, never by the reason's text.
 */
const BY_TYPE: Partial<Record<ChannelType, Record<string, MessageFailedCode>>> = {
  // Graph errors are stored as `code` or `code/subcode`; the main code decides.
  socialnet_chat: {
    '551': 2, // this person isn't available right now (blocked, deleted, unreachable)
    '200/1545041': 2, // the same refusal under the permission code
    '100/2018001': 3, // no matching user found
    no_recipient: 3,
  },
  // The messaging API's HTTP status: 404 (and 403 in older references) = the user cannot be reached.
  rbm: {
    '404': 3,
    '403': 3,
  },
  // Mail events: `reason` or `reason/SMTP code` of a permanent failure (email/inbound.ts).
  email: {
    'bounce/550': 3, // no such mailbox
    'bounce/551': 3,
    'bounce/553': 3,
    'suppress-bounce': 2, // the provider refuses an address that bounced, unsubscribed or complained before
    'suppress-unsubscribe': 2,
    'suppress-complaint': 2,
    complained: 2,
  },
  // The partner API's `status`: 8 the user blocked the sender, 9 the number is not on the app; a
  // message whose time to live ran out before it could be sent.
  appmsg_business_messages: {
    '8': 2,
    '9': 3,
    ttl_elapsed: 4,
  },
  // The bot API's `status`: 6 receiverNotSubscribed (unsubscribed, or never wrote), 5 receiverNotRegistered.
  appmsg: {
    '6': 2,
    '5': 3,
    no_recipient: 3,
  },
  botmsg: {
    '403': 2, // bot blocked by the user, user deactivated, conversation never started
    chat_not_found: 3, // 400 "Bad Request: chat not found" (botmsg/api.ts)
    no_recipient: 3,
  },
};

export function messageFailedCode(type: ChannelType, platformCode: string): MessageFailedCode {
  const table = BY_TYPE[type] ?? {};
  const lookup = (key: string) => (Object.hasOwn(table, key) ? table[key] : undefined);
  return lookup(platformCode) ?? lookup(platformCode.split('/')[0] ?? '') ?? 1;
}
