import { Type } from '@sinclair/typebox';
import { ApiError } from '../../lib/errors.js';
import { Nullable } from '../../schemas/common.js';
import type { Content } from '../../schemas/content.js';
import type { ChannelTypeDefinition } from '../../channel-types/definition.js';
import { NO_CONTACT_FIELDS, NO_SETTINGS, PLAIN_UPDATE, Str, strict } from '../../channel-types/common.js';
import type { ChannelTypeUi } from '../../channel-types/ui.js';

const filled = (s: string | undefined) => s !== undefined && s.trim() !== '';

/**
 * A card without an image goes out as a text message (its title, text and item URL) carrying its
 * buttons; the platform refuses a message whose text is empty or only white space ("message text
 * is empty"), so such a card is refused here, naming the field that would carry the text.
 */
function checkContent(content: Content): undefined {
  if (content.type !== 'structure' || Array.isArray(content.payload)) return undefined;
  const card = content.payload;
  if (filled(card.image_url) || filled(card.title) || filled(card.text) || filled(card.item_url)) return undefined;
  throw ApiError.invalid(
    'content.payload.title',
    card.title ?? null,
    "Property 'content.payload.title' is required on botmsg for a card without an image: the platform refuses a message without text (give a title or text).",
  );
}

// How the administration app shows the type (labels and hints; served by the admin channel-types route).
const BOTMSG_UI: ChannelTypeUi = {
  label: 'Bot messaging (botmsg)',
  shortLabel: 'Bot messaging',
  intro: "A bot of the bot messaging platform: paste the bot's token; its name and username are read from the platform.",
  fields: [{ path: 'botmsg.access_token', label: 'Bot token', kind: 'text' }],
  viewFields: [
    { path: 'botmsg.name', label: 'Bot name' },
    { path: 'botmsg.username', label: 'Bot username' },
  ],
};

/** A chat bot platform: synchronous sends to chat ids; the bot's name comes from the platform. */
export const botmsg: ChannelTypeDefinition = {
  type: 'botmsg',
  ui: BOTMSG_UI,
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
  send: { reservedMetadata: [], checkContent },
  settings: NO_SETTINGS,
  inboundEndpoints: [],
  webChat: false,
};
