import { Type } from '@sinclair/typebox';
import type { ChannelTypeDefinition } from './definition.js';
import { NO_CONTACT_FIELDS, NO_SEND_POLICIES, NO_SETTINGS, ownObjectView, PLAIN_UPDATE, Str, strict } from './common.js';

/** A messaging app's bot account: synchronous sends to the app's user ids. */
export const appmsg: ChannelTypeDefinition = {
  type: 'appmsg',
  modes: ['production'],
  capabilities: {
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
  input: { key: 'appmsg', schema: Type.Object({ access_token: Str(2000) }, strict), secretFields: ['access_token'], required: true },
  view: { schema: Type.Record(Type.String(), Type.Unknown()), render: ownObjectView('appmsg') },
  update: PLAIN_UPDATE,
  contactView: NO_CONTACT_FIELDS,
  send: NO_SEND_POLICIES,
  settings: NO_SETTINGS,
  inboundEndpoints: [],
  webChat: false,
};
