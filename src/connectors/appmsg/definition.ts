import { Type } from '@sinclair/typebox';
import { ApiError } from '../../lib/errors.js';
import { Nullable } from '../../schemas/common.js';
import type { Card, Content } from '../../schemas/content.js';
import type { ChannelTypeDefinition, ContactFields } from '../../channel-types/definition.js';
import { NO_SETTINGS, Str, strict } from '../../channel-types/common.js';
import type { ChannelTypeUi } from '../../channel-types/ui.js';

/**
 * The platform's limits beyond the capabilities (platforms.md §3.5): a URL of a button or card at
 * most 2000 characters, a message's JSON at most 30 KB (the content may take 24 KB of it: the
 * rendering adds the layout of cards and keyboards).
 */
export const APPMSG_URL_MAX = 2000;
export const APPMSG_CONTENT_MAX_BYTES = 24 * 1024;

function checkContent(content: Content): undefined {
  if (content.type === 'structure') {
    const cards: Card[] = Array.isArray(content.payload) ? content.payload : [content.payload];
    const many = Array.isArray(content.payload);
    cards.forEach((card, i) => {
      const at = many ? `content.payload[${i}]` : 'content.payload';
      if (card.item_url !== undefined && card.item_url.length > APPMSG_URL_MAX)
        throw ApiError.invalid(`${at}.item_url`, card.item_url, `Property '${at}.item_url' is longer than the platform's ${APPMSG_URL_MAX} characters.`);
      (card.buttons ?? []).forEach((b, j) => {
        if (b.type === 'url' && b.payload.length > APPMSG_URL_MAX)
          throw ApiError.invalid(
            `${at}.buttons[${j}].payload`,
            b.payload,
            `Property '${at}.buttons[${j}].payload' is longer than the platform's ${APPMSG_URL_MAX} characters.`,
          );
      });
    });
  }
  const size = Buffer.byteLength(JSON.stringify(content), 'utf8');
  if (size > APPMSG_CONTENT_MAX_BYTES)
    throw ApiError.invalid('content', null, `Property 'content' is too large for the platform: ${size} bytes of JSON, at most ${APPMSG_CONTENT_MAX_BYTES}.`);
  return undefined;
}

/** The profile the platform sent with the user's subscription: picture (copied into the file store), country, language. */
function profileFields(contact: ContactFields) {
  const view: { photo_url?: string; country?: string; language?: string } = {};
  const profile = JSON.parse(contact.profile) as Record<string, unknown>;
  if (typeof profile.photo_url === 'string') view.photo_url = profile.photo_url;
  if (typeof profile.country === 'string') view.country = profile.country;
  if (typeof profile.language === 'string') view.language = profile.language;
  return view;
}

const shown = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

// How the administration app shows the type (labels and hints; served by the admin channel-types route).
const APPMSG_UI: ChannelTypeUi = {
  label: 'App messaging (appmsg)',
  shortLabel: 'App messaging',
  intro: 'Messaging through the app platform with an access token.',
  fields: [{ path: 'appmsg.access_token', label: 'Access token', kind: 'text' }],
  viewFields: [
    { path: 'appmsg.name', label: 'Account name' },
    { path: 'appmsg.uri', label: 'Account URI' },
  ],
};

/** A messaging app's bot account: synchronous sends to the app's user ids, signed callbacks on the channel's own URL. */
export const appmsg: ChannelTypeDefinition = {
  type: 'appmsg',
  ui: APPMSG_UI,
  modes: ['production'],
  capabilities: {
    // The platform has no audio messages.
    contentTypes: ['text', 'image', 'video', 'file', 'location', 'structure'],
    quickReplies: 'native',
    quickReplyKinds: ['text', 'location', 'phone_number'],
    buttons: ['url', 'postback'],
    // A card is one group of 7 rows: with 3 buttons there is room left for its image and text.
    maxButtonsPerCard: 3,
    maxCards: 6,
    maxTextLength: 7000,
    notifications: [],
    delivery: 'sync',
    contactForms: ['id'],
  },
  input: { key: 'appmsg', schema: Type.Object({ access_token: Str(2000) }, strict), secretFields: ['access_token'], required: true },
  view: {
    schema: Type.Object({
      id: Nullable(Type.String({ description: "The platform's id of the account." })),
      name: Nullable(Type.String({ description: 'The account name, read from the platform; messages are sent under it (at most 28 characters).' })),
      uri: Nullable(Type.String({ description: "The account's URI on the platform (its deep links)." })),
      icon: Nullable(Type.String({ description: "The account's icon URL; messages are sent with it as the sender's avatar." })),
      access_token: Type.String(),
    }),
    render: ({ own }) => ({
      appmsg: { id: shown(own.id), name: shown(own.name), uri: shown(own.uri), icon: shown(own.icon), access_token: String(own.access_token) },
    }),
  },
  update: { reverifyKeys: [], ownKeys: [] },
  contactView: { phoneNumber: false, email: false, extra: profileFields },
  send: { reservedMetadata: [], checkContent },
  settings: NO_SETTINGS,
  inboundEndpoints: [],
  webChat: false,
  reportsRead: true,
};
