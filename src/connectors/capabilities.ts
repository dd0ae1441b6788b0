import type { ChannelType } from '../schemas/channel-types.js';
import { MAX_BUTTONS_PER_CARD, MAX_CARDS } from '../schemas/content.js';
import type { Capabilities } from './connector.js';

/**
 * What each channel type can send (one table for the API, the domain and the connectors).
 * Taken from the platforms' own limits: text lengths, card and button
 * counts, which quick-reply kinds a platform can show. A platform without quick replies gets them
 * as numbered text choices, so only the `text` kind makes sense there.
 */
export const CAPABILITIES: Record<ChannelType, Capabilities> = {
  service_chat: {
    contentTypes: ['text', 'image', 'video', 'audio', 'file', 'location', 'structure'],
    quickReplies: 'native',
    quickReplyKinds: ['text', 'location', 'email', 'phone_number'],
    buttons: ['url', 'postback', 'phone'],
    maxButtonsPerCard: MAX_BUTTONS_PER_CARD,
    maxCards: MAX_CARDS,
    maxTextLength: 10_000,
    notifications: ['typing_on', 'typing_off', 'messages_read', 'custom'],
    delivery: 'sync',
    contactForms: ['id'],
  },
  socialnet_chat: {
    // Location messages can only be received there (messaging-api.md).
    contentTypes: ['text', 'image', 'video', 'audio', 'file', 'structure', 'receipt'],
    quickReplies: 'native',
    // The platform removed the location quick reply in API v4.0.
    quickReplyKinds: ['text', 'email', 'phone_number'],
    buttons: ['url', 'postback', 'phone'],
    maxButtonsPerCard: 3,
    maxCards: 10,
    maxTextLength: 2000,
    notifications: ['typing_on', 'typing_off', 'messages_read'],
    delivery: 'sync',
    contactForms: ['id', 'phone_number', 'user_ref'],
  },
  mobile: {
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
  rbm: {
    contentTypes: ['text', 'image', 'video', 'audio', 'file', 'location', 'structure'],
    quickReplies: 'native',
    quickReplyKinds: ['text', 'location'],
    buttons: ['url', 'postback', 'phone'],
    maxButtonsPerCard: 3,
    maxCards: 10,
    maxTextLength: 3072,
    notifications: ['typing_on', 'messages_read'],
    delivery: 'async',
    contactForms: ['phone_number'],
  },
  appmsg: {
    contentTypes: ['text', 'image', 'video', 'file', 'location', 'structure'],
    quickReplies: 'native',
    quickReplyKinds: ['text', 'location', 'phone_number'],
    buttons: ['url', 'postback'],
    maxButtonsPerCard: 3,
    maxCards: 6,
    maxTextLength: 7000,
    notifications: [],
    delivery: 'sync',
    contactForms: ['id'],
  },
  appmsg_business_messages: {
    contentTypes: ['text', 'image', 'video', 'file', 'structure'],
    quickReplies: 'native',
    quickReplyKinds: ['text'],
    buttons: ['url'],
    maxButtonsPerCard: 1,
    maxCards: 5,
    maxTextLength: 1000,
    notifications: [],
    delivery: 'async',
    contactForms: ['phone_number'],
  },
  botmsg: {
    contentTypes: ['text', 'image', 'video', 'audio', 'file', 'location', 'structure'],
    quickReplies: 'native',
    quickReplyKinds: ['text', 'location', 'phone_number'],
    buttons: ['url', 'postback'],
    maxButtonsPerCard: 3,
    maxCards: 1,
    maxTextLength: 4096,
    notifications: ['typing_on'],
    delivery: 'sync',
    contactForms: ['id'],
  },
  email: {
    contentTypes: ['text', 'image', 'video', 'audio', 'file', 'structure'],
    quickReplies: 'text',
    quickReplyKinds: ['text'],
    buttons: ['url'],
    maxButtonsPerCard: 3,
    maxCards: 10,
    maxTextLength: 100_000,
    notifications: [],
    delivery: 'async',
    contactForms: ['id', 'email'],
  },
};

export function capabilitiesOf(type: ChannelType): Capabilities {
  return CAPABILITIES[type];
}
