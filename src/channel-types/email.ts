import { Type } from '@sinclair/typebox';
import type { ChannelTypeDefinition } from './definition.js';
import { NO_SEND_POLICIES, NO_SETTINGS, ownObjectView, PLAIN_UPDATE, Str, strict } from './common.js';

/** E-mail through a mail provider: asynchronous sends to addresses (or known contacts by id). */
export const email: ChannelTypeDefinition = {
  type: 'email',
  modes: ['production'],
  capabilities: {
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
  input: {
    key: 'provider',
    schema: Type.Object(
      {
        type: Type.Literal('mailprovider'),
        access_token: Str(2000),
        sender: Type.Object({ email: Type.String({ minLength: 3, maxLength: 320, format: 'email' }), name: Str(200) }, strict),
      },
      strict,
    ),
    secretFields: ['access_token'],
    required: true,
  },
  view: { schema: Type.Record(Type.String(), Type.Unknown()), render: ownObjectView('provider') },
  update: PLAIN_UPDATE,
  contactView: { phoneNumber: false, email: true },
  send: NO_SEND_POLICIES,
  settings: NO_SETTINGS,
  inboundEndpoints: [],
  webChat: false,
};
