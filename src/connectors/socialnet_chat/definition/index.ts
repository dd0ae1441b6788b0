import { Type } from '@sinclair/typebox';
import { Nullable } from '../../../schemas/common.js';
import type { ChannelTypeDefinition, ContactFields } from '../../../channel-types/definition.js';
import { Str, strict } from '../../../channel-types/common.js';
import { checkMetadata, directDefaults, RESERVED_METADATA } from './metadata.js';
import { settings } from './settings.js';
import type { ChannelTypeUi } from '../../../channel-types/ui.js';

/** Configuration keys of the page's connection state and the platform's reason for it. */
export const PAGE_STATE_KEY = 'page_state';
export const PAGE_REASON_KEY = 'page_state_reason';
const PAGE_DISCONNECTED = 'disconnected';

/** The profile fields a contact shows, as the platform gave them. */
function profileFields(contact: ContactFields) {
  const view: { user_ref?: string; gender?: string; time_zone?: string | number; photo_url?: string } = {};
  if (contact.user_ref) view.user_ref = contact.user_ref;
  const profile = JSON.parse(contact.profile) as Record<string, unknown>;
  if (typeof profile.gender === 'string') view.gender = profile.gender;
  if (typeof profile.time_zone === 'string' || typeof profile.time_zone === 'number') view.time_zone = profile.time_zone;
  if (typeof profile.photo_url === 'string') view.photo_url = profile.photo_url;
  return view;
}

// How the administration app shows the type (labels and hints; served by the admin channel-types route).
const SOCIALNET_CHAT_UI: ChannelTypeUi = {
  label: 'Social network chat (socialnet_chat)',
  shortLabel: 'Social chat',
  intro: 'Connects one page of the social network. Sending and receiving work only while the page is connected.',
  fields: [
    { path: 'socialnet_page.id', label: 'Page id', kind: 'text', hint: "The page's id on the social network." },
    {
      path: 'socialnet_page.access_token',
      label: 'Page access token',
      kind: 'text',
      hint: 'A short- or long-lived page token; the service keeps a long-lived one.',
    },
  ],
  viewFields: [
    { path: 'socialnet_page.name', label: 'Page' },
    { path: 'socialnet_page.category', label: 'Page category' },
  ],
  state: {
    states: [
      {
        state: 'disconnected',
        label: 'Page disconnected',
        tone: 'bad',
        description: "The platform no longer takes the page's token{reason}: update the channel with a new token.",
      },
    ],
    missing: { path: 'socialnet_page.id', label: 'Page not connected', tone: 'bad', description: 'Sending and receiving work only while a page is connected.' },
  },
};

/** A social network's page inbox: synchronous sends, message tags and a reply window, page settings on the platform. */
export const socialnetChat: ChannelTypeDefinition = {
  type: 'socialnet_chat',
  ui: SOCIALNET_CHAT_UI,
  modes: ['production'],
  capabilities: {
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
  input: {
    key: 'socialnet_page',
    schema: Type.Object({ id: Str(100), access_token: Str(2000) }, strict),
    secretFields: ['access_token'],
    required: true,
  },
  view: {
    schema: Type.Object({
      id: Type.String(),
      name: Nullable(Type.String()),
      category: Nullable(Type.String()),
      access_token: Type.String(),
      page_state: Type.Optional(
        Type.Literal(PAGE_DISCONNECTED, {
          description:
            'Beyond the specification: shown only when the platform refused the page token (code 190: expired, password changed, app removed). Sending answers 502 until the channel is updated with a new token.',
        }),
      ),
      page_state_reason: Type.Optional(Type.String({ description: "The platform's reason for the disconnection." })),
    }),
    render: ({ own }) => ({
      socialnet_page: {
        id: String(own.id),
        name: (own.name as string | undefined) ?? null,
        category: (own.category as string | undefined) ?? null,
        access_token: String(own.access_token),
        ...(own[PAGE_STATE_KEY] === PAGE_DISCONNECTED
          ? { page_state: PAGE_DISCONNECTED, ...(typeof own[PAGE_REASON_KEY] === 'string' ? { page_state_reason: own[PAGE_REASON_KEY] } : {}) }
          : {}),
      },
    }),
  },
  // Another page id is another page: its token must be checked against it.
  update: { reverifyKeys: ['id'], ownKeys: [] },
  // The phone number shows once a message was sent by it.
  contactView: { phoneNumber: true, email: false, extra: profileFields },
  send: { reservedMetadata: RESERVED_METADATA, checkMetadata, directDefaults },
  settings,
  inboundEndpoints: [],
  webChat: false,
  reportsRead: true,
  // The page's connection: the platform disconnects it (its token stops working); a send, a
  // notification or a profile read that meets this reports it, Get Channel `?refresh=true` reads it.
  platformState: { key: PAGE_STATE_KEY, requested: [], reasonKey: PAGE_REASON_KEY, testersKey: 'testers' },
};
