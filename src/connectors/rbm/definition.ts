import { Type } from '@sinclair/typebox';
import { ApiError, say } from '../../lib/errors.js';
import type { ChannelTypeDefinition } from '../../channel-types/definition.js';
import type { Content } from '../../schemas/content.js';
import { NO_SETTINGS, PHONE_NUMBER_SHOWN, Str, strict } from '../../channel-types/common.js';
import { AgentProfile, checkAgentRequest, LaunchQuestionnaire, VerificationContact } from './definition-agent-fields.js';
import type { ChannelTypeUi } from '../../channel-types/ui.js';

/** The agent's life cycle on the platform (contract.md §3). */
export const RBM_AGENT_STATES = ['new', 'create_requested', 'created', 'launch_requested', 'launched'] as const;
export type RbmAgentState = (typeof RBM_AGENT_STATES)[number];

/** The client may ask for these agent states; the platform moves the agent to the others. */
const CLIENT_TRANSITIONS: Partial<Record<RbmAgentState, RbmAgentState>> = { new: 'create_requested', created: 'launch_requested' };

/** The channel's own URL the platform calls (handshake, user messages and events). */
const INBOUND_ENDPOINT = 'events';

export const RBM_REGIONS = ['north_america', 'europe', 'asia_pacific'] as const;
const Region = Type.Union(RBM_REGIONS.map((r) => Type.Literal(r)));

/** The channel's testers with their answers, as last read from the platform (`{phone: state}` in the config). */
export function testerStates(config: Record<string, unknown>): Record<string, string> {
  const testers = config.testers;
  return testers !== null && typeof testers === 'object' && !Array.isArray(testers) ? (testers as Record<string, string>) : {};
}

/**
 * In production before the agent is launched (contract.md §3): a `created` agent (or one whose
 * launch is requested) sends only to the channel's testers who accepted the invitation; `new`
 * and `create_requested` agents cannot send in production at all.
 */
function checkProduction(channel: { id: string; config: Record<string, unknown> }, phoneNumber: string | null): void {
  const state = typeof channel.config.agent_state === 'string' ? channel.config.agent_state : 'new';
  if (state === 'launched') return;
  if (state === 'new' || state === 'create_requested') {
    throw ApiError.invalid(
      'channel.id',
      channel.id,
      `The rbm agent of this channel is in state '${state}' and cannot send in production; send through a channel in test mode until the agent is created.`,
    );
  }
  if (phoneNumber !== null && testerStates(channel.config)[phoneNumber] !== 'accepted') {
    throw ApiError.invalid(
      'contact.phone_number',
      phoneNumber,
      `The rbm agent of this channel is not launched yet (state '${state}'): in production it sends only to testers who accepted the invitation, and ${phoneNumber} is not an accepted tester (invite it with POST /channels/${channel.id}/testers; List Testers reads the answers again).`,
    );
  }
}

/** Suggestions of one message the platform shows at most (quick replies and a location's view action). */
const MAX_SUGGESTIONS = 11;

/**
 * The platform's limits beyond the capabilities: a carousel has 2 to 10 cards (one card is sent
 * as a standalone card: send it as an object), each card shows a title, a text or an image, and a
 * location's view action counts among the message's 11 suggestions.
 */
function checkContent(content: Content): undefined {
  if (content.type === 'structure') {
    const cards = Array.isArray(content.payload) ? content.payload : [content.payload];
    if (Array.isArray(content.payload) && cards.length < 2) {
      throw ApiError.invalid('content.payload', null, 'An rbm carousel has 2 to 10 cards; send one card as an object, not as an array.');
    }
    cards.forEach((card, i) => {
      if (!card.title && !card.text && !card.image_url) {
        const field = Array.isArray(content.payload) ? `content.payload[${i}]` : 'content.payload';
        throw ApiError.invalid(field, null, `Property '${field}' needs a title, a text or an image_url on an rbm channel.`);
      }
    });
  }
  if (content.type === 'location' && (content.quick_replies?.length ?? 0) > MAX_SUGGESTIONS - 1) {
    throw ApiError.invalid(
      'content.quick_replies',
      null,
      `A location on an rbm channel is sent with a view-location action: at most ${MAX_SUGGESTIONS - 1} quick replies go with it.`,
    );
  }
  return undefined;
}

/** The key the platform issued for a service account; `client_email`, `private_key` and `token_uri` at least. */
const ServiceAccountKey = Type.Object(
  {
    type: Type.Optional(Type.String({ maxLength: 100 })),
    project_id: Type.Optional(Type.String({ maxLength: 300 })),
    private_key_id: Type.Optional(Type.String({ maxLength: 300 })),
    private_key: Type.String({ minLength: 1, maxLength: 10_000 }),
    client_email: Str(320),
    client_id: Type.Optional(Type.String({ maxLength: 300 })),
    auth_uri: Type.Optional(Type.String({ maxLength: 2048 })),
    token_uri: Type.Optional(Type.String({ maxLength: 2048 })),
    auth_provider_x509_cert_url: Type.Optional(Type.String({ maxLength: 2048 })),
    client_x509_cert_url: Type.Optional(Type.String({ maxLength: 2048 })),
    universe_domain: Type.Optional(Type.String({ maxLength: 300 })),
  },
  {
    additionalProperties: false,
    description: "The platform's service-account key JSON object, as issued. Write-only: responses show only its client_email.",
  },
);

// How the administration app shows the type (labels and hints; served by the admin channel-types route).
const RBM_UI: ChannelTypeUi = {
  label: 'RCS business messaging (rbm)',
  shortLabel: 'RCS',
  intro:
    'RCS business messaging through an agent. With the service-account key, the service registers a new agent when you ask (or uses the one you name) and follows its launch.',
  fields: [
    { path: 'rbm.agent_name', label: 'Agent name', kind: 'text', hint: 'Shown to end users.' },
    {
      path: 'region',
      label: 'Region',
      kind: 'select',
      options: [
        { id: 'north_america', label: 'North America' },
        { id: 'europe', label: 'Europe' },
        { id: 'asia_pacific', label: 'Asia Pacific' },
      ],
      viewPaths: ['rbm.region', 'region'],
      hint: 'Where the agent is registered.',
    },
    {
      path: 'rbm.service_account_key',
      label: 'Service-account key (JSON)',
      viewLabel: 'Service account',
      kind: 'json',
      hint: 'Paste the key file the platform issued, as it is. It is kept encrypted and never shown again; the channel shows only its client_email.',
      placeholder: '{"type": "service_account", "client_email": "…", "private_key": "…"}',
    },
    {
      path: 'rbm.agent_id',
      label: 'Existing agent id',
      viewLabel: 'Agent id',
      kind: 'text',
      hint: 'Optional: an agent you already have on the platform (its id, or brands/…/agents/…). Without it the service registers one.',
    },
    {
      path: 'rbm.client_token',
      label: 'Client token',
      kind: 'text',
      hint: 'Optional: the token the platform signs its webhook calls with; the service makes one when empty.',
    },
    {
      group: 'rbm.agent_profile',
      path: 'rbm.agent_profile.description',
      label: 'Agent description',
      kind: 'text',
      hint: 'Shown to users, at most 100 characters.',
    },
    {
      group: 'rbm.agent_profile',
      path: 'rbm.agent_profile.logo_url',
      label: 'Logo URL',
      kind: 'text',
      placeholder: 'https://example.com/logo.png',
      hint: 'At most 50 KB.',
    },
    {
      group: 'rbm.agent_profile',
      path: 'rbm.agent_profile.hero_url',
      label: 'Banner image URL',
      kind: 'text',
      placeholder: 'https://example.com/banner.png',
      hint: 'At most 200 KB.',
    },
    { group: 'rbm.agent_profile', path: 'rbm.agent_profile.color', label: 'Theme color', kind: 'text', placeholder: '#0B78D0' },
    {
      group: 'rbm.agent_profile',
      path: 'rbm.agent_profile.billing_category',
      label: 'Billing category',
      kind: 'select',
      options: [
        { id: 'conversational', label: 'Conversational: billed per conversation' },
        { id: 'non_conversational', label: 'Non-conversational: billed per message' },
      ],
    },
    {
      group: 'rbm.agent_profile',
      path: 'rbm.agent_profile.use_case',
      label: 'Use case',
      kind: 'select',
      options: [
        { id: 'transactional', label: 'Transactional' },
        { id: 'promotional', label: 'Promotional' },
        { id: 'otp', label: 'One-time passwords' },
        { id: 'multi_use', label: 'Multi-use' },
      ],
    },
    { group: 'rbm.agent_profile', path: 'rbm.agent_profile.privacy_policy.url', label: 'Privacy policy URL', kind: 'text' },
    { group: 'rbm.agent_profile', path: 'rbm.agent_profile.terms_and_conditions.url', label: 'Terms and conditions URL', kind: 'text' },
    { group: 'rbm.agent_profile', path: 'rbm.agent_profile.phones.0.number', label: 'Contact phone number', kind: 'text', placeholder: '+12025550143' },
    { group: 'rbm.agent_profile', path: 'rbm.agent_profile.phones.0.label', label: 'Contact phone label', kind: 'text', placeholder: 'Call us' },
    { group: 'rbm.agent_profile', path: 'rbm.agent_profile.emails.0.address', label: 'Contact e-mail address', kind: 'email' },
    { group: 'rbm.agent_profile', path: 'rbm.agent_profile.emails.0.label', label: 'Contact e-mail label', kind: 'text', placeholder: 'Write to us' },
    { group: 'rbm.agent_profile', path: 'rbm.agent_profile.websites.0.url', label: 'Website URL', kind: 'text' },
    { group: 'rbm.agent_profile', path: 'rbm.agent_profile.websites.0.label', label: 'Website label', kind: 'text', placeholder: 'Our website' },
    {
      group: 'rbm.verification_contact',
      path: 'rbm.verification_contact.partner_name',
      label: 'Partner name',
      kind: 'text',
      hint: 'You, who ask for the agent.',
    },
    { group: 'rbm.verification_contact', path: 'rbm.verification_contact.partner_email', label: 'Partner e-mail', kind: 'email' },
    { group: 'rbm.verification_contact', path: 'rbm.verification_contact.brand_contact_name', label: 'Brand contact name', kind: 'text' },
    { group: 'rbm.verification_contact', path: 'rbm.verification_contact.brand_contact_email', label: 'Brand contact e-mail', kind: 'email' },
    { group: 'rbm.verification_contact', path: 'rbm.verification_contact.brand_website_url', label: 'Brand website URL', kind: 'text' },
    { group: 'rbm.launch_questionnaire', path: 'rbm.launch_questionnaire.contacts.0.name', label: 'Review contact name', kind: 'text' },
    { group: 'rbm.launch_questionnaire', path: 'rbm.launch_questionnaire.contacts.0.title', label: 'Review contact title', kind: 'text' },
    { group: 'rbm.launch_questionnaire', path: 'rbm.launch_questionnaire.contacts.0.email', label: 'Review contact e-mail', kind: 'email' },
    { group: 'rbm.launch_questionnaire', path: 'rbm.launch_questionnaire.opt_in_description', label: 'How users opt in', kind: 'text' },
    { group: 'rbm.launch_questionnaire', path: 'rbm.launch_questionnaire.trigger_description', label: 'What triggers messages', kind: 'text' },
    { group: 'rbm.launch_questionnaire', path: 'rbm.launch_questionnaire.interactions_description', label: 'The conversations', kind: 'text' },
    { group: 'rbm.launch_questionnaire', path: 'rbm.launch_questionnaire.opt_out_description', label: 'What users get when they opt out', kind: 'text' },
    { group: 'rbm.launch_questionnaire', path: 'rbm.launch_questionnaire.access_instructions', label: 'How reviewers reach the agent', kind: 'text' },
    { group: 'rbm.launch_questionnaire', path: 'rbm.launch_questionnaire.video_urls.0', label: 'Demo video URL', kind: 'text', hint: 'Optional.' },
    { group: 'rbm.launch_questionnaire', path: 'rbm.launch_questionnaire.screenshot_urls.0', label: 'Screenshot URL', kind: 'text', hint: 'Optional.' },
  ],
  groups: [
    {
      id: 'rbm.agent_profile',
      title: 'Agent profile',
      intro: 'Needed when the service registers the agent: how users see it. Give a phone number or an e-mail address; the launch needs one.',
    },
    {
      id: 'rbm.verification_contact',
      title: 'Brand verification',
      intro: 'Needed with the profile: who the platform asks to confirm that you represent the brand.',
    },
    {
      id: 'rbm.launch_questionnaire',
      title: 'Launch questionnaire',
      intro: 'Needed to launch the agent: the answers the platform and the carriers review.',
    },
  ],
  platformUrls: [
    { path: 'rbm.webhook_url', label: "Webhook URL (set it as the agent's webhook on the RCS platform)" },
    { path: 'rbm.client_token', label: 'Client token (set it with that webhook URL)', copyLabel: 'Copy token' },
  ],
  state: {
    initial: 'new',
    states: [
      { state: 'new', label: 'Agent not registered', description: 'The agent does not exist on the RCS platform yet.', tone: 'warn' },
      { state: 'create_requested', label: 'Registration requested', description: 'The request to register the agent was received.', tone: 'warn' },
      { state: 'created', label: 'Agent created', description: 'The agent can be used with test phone numbers only.', tone: 'warn' },
      { state: 'launch_requested', label: 'Launch requested', description: 'The request to launch the agent was received.', tone: 'warn' },
      { state: 'launched', label: 'Launched', description: 'RCS messages can be sent to any phone number.', tone: 'ok' },
    ],
    panel: {
      title: 'RCS agent',
      stepsLabel: 'Agent life cycle',
      waiting: 'Waiting for the RCS platform; the state changes when it answers.',
      done: 'Nothing more to do: the agent is live.',
      actions: [
        {
          from: 'new',
          to: 'create_requested',
          label: 'Register agent',
          confirm: 'The service asks the RCS platform to register this agent. Once created, it can message test phone numbers only.',
        },
        {
          from: 'created',
          to: 'launch_requested',
          label: 'Launch agent',
          confirm: 'The service asks the RCS platform to launch this agent. Once launched, it can message any phone number.',
        },
      ],
    },
  },
};

/** Rich business messaging to phone numbers through an agent, in a region; asynchronous sends. */
export const rbm: ChannelTypeDefinition = {
  type: 'rbm',
  ui: RBM_UI,
  modes: ['production', 'test'],
  capabilities: {
    // Files by URL (the platform fetches them), a location as a view-location action, cards and carousels.
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
  input: {
    key: 'rbm',
    schema: Type.Object(
      {
        agent_name: Str(100),
        agent_state: Type.Optional(Type.Union(RBM_AGENT_STATES.map((s) => Type.Literal(s)))),
        service_account_key: Type.Optional(ServiceAccountKey),
        agent_id: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 300,
            description: 'An agent the partner already has on the platform (its id, or brands/{brand}/agents/{agent}); without it the service registers one.',
          }),
        ),
        client_token: Type.Optional(
          Type.String({
            minLength: 8,
            maxLength: 200,
            description:
              "The token the platform's webhook calls are signed with (set with the webhook URL on the platform); made by the service when not given.",
          }),
        ),
        agent_profile: Type.Optional(AgentProfile),
        verification_contact: Type.Optional(VerificationContact),
        launch_questionnaire: Type.Optional(LaunchQuestionnaire),
      },
      strict,
    ),
    secretFields: ['service_account_key', 'client_token'],
    required: true,
    extraFields: { region: Type.Optional(Region) },
    prepareCreate(config, body) {
      const state = (config.agent_state as RbmAgentState | undefined) ?? 'new';
      if (state !== 'new' && state !== 'create_requested') {
        throw ApiError.invalid('rbm.agent_state', state, `A new agent can only be in state 'new' or 'create_requested'.`);
      }
      config.agent_state = state;
      config.region = (body.region as string | undefined) ?? RBM_REGIONS[0];
      const own = (body.rbm ?? {}) as Record<string, unknown>;
      checkAgentRequest(config, state, own.service_account_key !== undefined);
    },
  },
  view: {
    schema: Type.Object({
      agent_name: Type.String(),
      agent_state: Type.String(),
      region: Type.Optional(Type.String()),
      agent_state_reason: Type.Optional(
        Type.String({ description: 'Beyond the specification: why the platform did not move the agent on (a rejected launch).' }),
      ),
      agent_id: Type.Optional(Type.String()),
      service_account_key: Type.Optional(Type.Object({ client_email: Type.String() })),
      webhook_url: Type.Optional(Type.String({ description: "Beyond the specification: the URL to set as the agent's webhook on the platform." })),
      client_token: Type.Optional(Type.String({ description: 'Beyond the specification: the client token to set with it.' })),
      agent_profile: Type.Optional(AgentProfile),
      verification_contact: Type.Optional(VerificationContact),
      launch_questionnaire: Type.Optional(LaunchQuestionnaire),
    }),
    // The specification's quirk: region is `rbm.region` in Get Channel and a top-level `region`
    // in list, create and update responses. The platform fields show once the channel has a key.
    render: ({ own, region, placement, inboundUrl }) => {
      const agent: Record<string, unknown> = { agent_name: String(own.agent_name), agent_state: String(own.agent_state ?? 'new') };
      if (typeof own.agent_state_reason === 'string') agent.agent_state_reason = own.agent_state_reason;
      if (typeof own.agent_id === 'string') agent.agent_id = own.agent_id;
      if (typeof own.service_account_key === 'string') {
        agent.service_account_key = { client_email: String(own.client_email ?? '') };
        agent.webhook_url = inboundUrl(INBOUND_ENDPOINT);
        if (typeof own.client_token === 'string') agent.client_token = own.client_token;
      }
      // What the client gave for the platform's agent, registration and launch, as given.
      for (const key of ['agent_profile', 'verification_contact', 'launch_questionnaire']) if (own[key] !== undefined) agent[key] = own[key];
      if (placement === 'get') return { rbm: { ...agent, region: String(region) } };
      return { rbm: agent, region: String(region) };
    },
  },
  update: {
    // Naming another agent reads it from the platform again.
    reverifyKeys: ['agent_id'],
    // The agent's state moves by the platform's life cycle, not by copying.
    ownKeys: ['agent_state'],
    apply(config, patch, body) {
      if (patch?.agent_state !== undefined) {
        const from = config.agent_state as RbmAgentState;
        const to = patch.agent_state as RbmAgentState;
        if (to !== from && CLIENT_TRANSITIONS[from] !== to) {
          throw ApiError.invalid('rbm.agent_state', to, `The agent cannot move from state '${from}' to '${to}'.`);
        }
        config.agent_state = to;
        // Asking for a state again checks it again (the fields may have changed since).
        checkAgentRequest(config, to, typeof config.client_email === 'string' || patch.service_account_key !== undefined);
      }
      if (body.region !== undefined) {
        if (body.region === null) throw ApiError.invalid('region', null, say.cannotBeNull('region'));
        config.region = body.region;
      }
    },
  },
  contactView: PHONE_NUMBER_SHOWN,
  // The platform's default quota is far above this; 30 a second per channel keeps a burst in the queue.
  send: { reservedMetadata: [], checkProduction, checkContent, ratePerSecond: 30 },
  settings: NO_SETTINGS,
  inboundEndpoints: [INBOUND_ENDPOINT],
  platformState: { key: 'agent_state', requested: ['create_requested', 'launch_requested'], reasonKey: 'agent_state_reason', testersKey: 'testers' },
  webChat: false,
  reportsRead: true,
};
