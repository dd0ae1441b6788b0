import { Type } from '@sinclair/typebox';
import type { ChannelTypeDefinition, SentParts } from '../../channel-types/definition.js';
import { ApiError } from '../../lib/errors.js';
import { smsParts } from '../../lib/sms-parts.js';
import { smsText } from '../../lib/sms-text.js';
import type { Content } from '../../schemas/content.js';
import { NO_SETTINGS, PHONE_NUMBER_SHOWN, PLAIN_UPDATE, SEND_RATE, Str, strict } from '../../channel-types/common.js';
import type { ChannelTypeUi } from '../../channel-types/ui.js';

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

// How the administration app shows the type (labels and hints; served by the admin channel-types route).
const MOBILE_UI: ChannelTypeUi = {
  label: 'SMS (mobile)',
  shortLabel: 'SMS',
  intro: 'SMS through the SMS provider. In test mode messages are stored and echoed but never sent.',
  fields: [
    {
      path: 'provider.sender_id',
      label: 'Sender id',
      kind: 'text',
      hint: 'Your registered phone number, or any name when you send from a shared number.',
      placeholder: '+12025550143',
    },
    { path: 'provider.access_token', label: 'Provider access token', kind: 'text' },
    { path: 'provider.signing_key', label: 'Signing key', kind: 'text', hint: "Verifies that the provider's calls to this service are genuine." },
    { path: 'provider.send_rate', label: 'Messages per second', kind: 'integer', hint: "Optional, 1 to 1000; the type's own rate when empty." },
  ],
  platformUrls: [
    { path: 'provider.status_webhook_url', label: 'Status webhook URL (give it to the SMS provider)' },
    { path: 'provider.receive_webhook_url', label: 'Receive webhook URL (give it to the SMS provider)' },
  ],
};

/** SMS through a provider: asynchronous sends, reports on the channel's own inbound URLs. */
export const mobile: ChannelTypeDefinition = {
  type: 'mobile',
  ui: MOBILE_UI,
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
