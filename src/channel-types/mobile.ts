import { Type } from '@sinclair/typebox';
import type { ChannelTypeDefinition } from './definition.js';
import { NO_SEND_POLICIES, NO_SETTINGS, PHONE_NUMBER_SHOWN, PLAIN_UPDATE, Str, strict } from './common.js';

/** The SMS provider calls one URL per channel and report: delivery reports, and received messages. */
const INBOUND_ENDPOINTS = ['status', 'receive'] as const;

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
    schema: Type.Object({ type: Type.Literal('smsprovider'), sender_id: Str(100), access_token: Str(2000), signing_key: Str(2000) }, strict),
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
  send: NO_SEND_POLICIES,
  settings: NO_SETTINGS,
  inboundEndpoints: INBOUND_ENDPOINTS,
  webChat: false,
};
