import { Type } from '@sinclair/typebox';
import type { ChannelTypeDefinition } from './definition.js';
import { NO_SEND_POLICIES, NO_SETTINGS, ownObjectView, PHONE_NUMBER_SHOWN, PLAIN_UPDATE, Str, strict } from './common.js';

/** A messaging app's business messages to phone numbers: asynchronous sends with a time to live; a shared trial mode. */
export const appmsgBusinessMessages: ChannelTypeDefinition = {
  type: 'appmsg_business_messages',
  modes: ['production', 'test', 'shared'],
  capabilities: {
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
  input: {
    key: 'appmsg_business_messages',
    schema: Type.Object(
      { sender_id: Str(100), default_message_ttl: Type.Optional(Type.Integer({ minimum: 30, maximum: 1209600, description: 'Seconds.' })) },
      strict,
    ),
    secretFields: [],
    required: true,
  },
  view: { schema: Type.Record(Type.String(), Type.Unknown()), render: ownObjectView('appmsg_business_messages') },
  update: PLAIN_UPDATE,
  contactView: PHONE_NUMBER_SHOWN,
  send: NO_SEND_POLICIES,
  settings: NO_SETTINGS,
  inboundEndpoints: [],
  webChat: false,
};
