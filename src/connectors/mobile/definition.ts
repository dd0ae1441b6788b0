import { Type } from '@sinclair/typebox';
import type { ChannelTypeDefinition, SentParts } from '../../channel-types/definition.js';
import { ApiError } from '../../lib/errors.js';
import { smsParts } from '../../lib/sms-parts.js';
import { smsText } from '../../lib/sms-text.js';
import type { Content } from '../../schemas/content.js';
import { NO_SETTINGS, PHONE_NUMBER_SHOWN, PLAIN_UPDATE, SEND_RATE, Str, strict } from '../../channel-types/common.js';

/** The SMS provider calls one URL per channel and report: delivery reports, and received messages. */
const INBOUND_ENDPOINTS = ['status', 'receive'] as const;

/**
 * Most parts the provider sends one message in: its longest body is 1377 characters, nine
 * GSM-7 parts of 153. A UCS-2 text has the same nine parts (603 code units).
 */
export const SMS_MAX_PARTS = 9;

/**
 * The text as it will go out (a file as its link, quick replies as numbered choices) must fit the
 * provider's parts; the parts it takes are stored with the message.
 */
function checkContent(content: Content): SentParts | undefined {
  const text = smsText(content);
  if (text === null) return undefined;
  const { encoding, parts } = smsParts(text);
  if (parts <= SMS_MAX_PARTS) return { count: parts, encoding };
  throw ApiError.invalid(
    'content.payload',
    content.type === 'text' ? content.payload : null,
    `Property 'content.payload' is too long for one SMS: it needs ${parts} parts in ${encoding === 'gsm7' ? 'GSM-7' : 'UCS-2'} (with its quick replies), at most ${SMS_MAX_PARTS} are sent.`,
  );
}

/** SMS through a provider: asynchronous sends, reports on the channel's own inbound URLs. */
export const mobile: ChannelTypeDefinition = {
  type: 'mobile',
  modes: ['production', 'test'],
  capabilities: {
    // Media goes out as a link in the text (or MMS where the provider has it).
    contentTypes: ['text', 'image', 'video', 'audio', 'file'],
    quickReplies: 'text',
    quickReplyKinds: ['text'],
    buttons: [],
    maxButtonsPerCard: 0,
    maxCards: 0,
    maxTextLength: 1377,
    notifications: [],
    delivery: 'async',
    contactForms: ['phone_number'],
  },
  input: {
    key: 'provider',
    schema: Type.Object(
      {
        type: Type.Literal('smsprovider'),
        sender_id: Str(100),
        access_token: Str(2000),
        signing_key: Str(2000),
        send_rate: Type.Optional(SEND_RATE),
      },
      strict,
    ),
    secretFields: ['access_token', 'signing_key'],
    required: true,
  },
  view: {
    schema: Type.Record(Type.String(), Type.Unknown()),
    // The URLs to give the provider: `status_webhook_url` and `receive_webhook_url`.
    render: ({ own, inboundUrl }) => {
      const provider: Record<string, unknown> = { ...own };
      for (const endpoint of INBOUND_ENDPOINTS) provider[`${endpoint}_webhook_url`] = inboundUrl(endpoint);
      return { provider };
    },
  },
  update: PLAIN_UPDATE,
  contactView: PHONE_NUMBER_SHOWN,
  // The provider publishes no rate limit (platforms.md §5.9): 30 SMS a second per channel keeps a
  // burst from one sender within what SMS routes take; a 429 slows the channel further.
  send: { reservedMetadata: [], checkContent, ratePerSecond: 30 },
  settings: NO_SETTINGS,
  inboundEndpoints: INBOUND_ENDPOINTS,
  webChat: false,
  // An alphanumeric sender id cannot be answered: replies come to a number the provider shares.
  ownNumber: (config) => {
    const sender = typeof config.sender_id === 'string' ? config.sender_id.trim() : '';
    return /^\+?\d+$/.test(sender) ? sender : null;
  },
};
