import { Type } from '@sinclair/typebox';
import { Nullable } from '../schemas/common.js';
import type { ChannelTypeDefinition } from './definition.js';
import { NO_CONTACT_FIELDS, NO_SEND_POLICIES, NO_SETTINGS, PLAIN_UPDATE, Str, strict } from './common.js';

/** A chat bot platform: synchronous sends to chat ids; the bot's name comes from the platform. */
export const botmsg: ChannelTypeDefinition = {
  type: 'botmsg',
  modes: ['production'],
  capabilities: {
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
  input: { key: 'botmsg', schema: Type.Object({ access_token: Str(2000) }, strict), secretFields: ['access_token'], required: true },
  view: {
    schema: Type.Object({ name: Nullable(Type.String()), username: Nullable(Type.String()), access_token: Type.String() }),
    render: ({ own }) => ({
      botmsg: {
        name: (own.name as string | undefined) ?? null,
        username: (own.username as string | undefined) ?? null,
        access_token: String(own.access_token),
      },
    }),
  },
  update: PLAIN_UPDATE,
  contactView: NO_CONTACT_FIELDS,
  send: NO_SEND_POLICIES,
  settings: NO_SETTINGS,
  inboundEndpoints: [],
  webChat: false,
};
