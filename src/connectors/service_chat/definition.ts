import { Type, type TSchema } from '@sinclair/typebox';
import { MAX_BUTTONS_PER_CARD, MAX_CARDS } from '../../schemas/content.js';
import type { ChannelTypeDefinition } from '../../channel-types/definition.js';
import { NO_CONTACT_FIELDS, NO_SEND_POLICIES, PLAIN_UPDATE } from '../../channel-types/common.js';
import { checkWhitelist, DomainsWhitelist } from '../../channel-types/domains-whitelist.js';
import type { ChannelTypeUi } from '../../channel-types/ui.js';

const nullable = (s: TSchema) => Type.Union([s, Type.Null()]);

/** Documented shape of the settings object (every value nullable: null means unset). */
export const ServiceChatSettings = Type.Object({ domains_whitelist: nullable(DomainsWhitelist) }, { title: 'service_chat settings' });

// How the administration app shows the type (labels and hints; served by the admin channel-types route).
const SERVICE_CHAT_UI: ChannelTypeUi = {
  label: 'Web chat (service_chat)',
  shortLabel: 'Web chat',
  intro: 'A web chat on your own site: after creating it, whitelist your domains in its Settings tab and paste the one-tag snippet into your pages.',
  fields: [],
};

/** The web chat: browsers talk to this service's own chat server; there is no outside platform. */
export const serviceChat: ChannelTypeDefinition = {
  type: 'service_chat',
  ui: SERVICE_CHAT_UI,
  modes: ['production'],
  capabilities: {
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
  input: { secretFields: [], required: false },
  view: { render: () => ({}) },
  update: PLAIN_UPDATE,
  contactView: NO_CONTACT_FIELDS,
  send: NO_SEND_POLICIES,
  settings: {
    names: ['domains_whitelist'],
    check: { domains_whitelist: checkWhitelist },
    appliedOnPlatform: false,
    schema: ServiceChatSettings,
  },
  inboundEndpoints: [],
  webChat: true,
};
