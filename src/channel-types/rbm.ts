import { Type } from '@sinclair/typebox';
import { ApiError, say } from '../lib/errors.js';
import type { ChannelTypeDefinition } from './definition.js';
import { NO_SETTINGS, PHONE_NUMBER_SHOWN, Str, strict } from './common.js';

/** The agent's life cycle on the platform (contract.md §3). */
export const RBM_AGENT_STATES = ['new', 'create_requested', 'created', 'launch_requested', 'launched'] as const;
export type RbmAgentState = (typeof RBM_AGENT_STATES)[number];

/** The client may ask for these agent states; the platform moves the agent to the others. */
const CLIENT_TRANSITIONS: Partial<Record<RbmAgentState, RbmAgentState>> = { new: 'create_requested', created: 'launch_requested' };

export const RBM_REGIONS = ['north_america', 'europe', 'asia_pacific'] as const;
const Region = Type.Union(RBM_REGIONS.map((r) => Type.Literal(r)));

/** Test numbers of a channel whose agent is not launched (E.164 strings in the channel's config). */
function testNumbers(config: Record<string, unknown>): string[] {
  const list = config.test_numbers;
  return Array.isArray(list) ? list.filter((n): n is string => typeof n === 'string') : [];
}

/**
 * In production before the agent is launched (contract.md §3): a `created` agent (or one whose
 * launch is requested) sends only to the channel's test numbers; `new` and `create_requested`
 * agents cannot send in production at all.
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
  if (phoneNumber !== null && !testNumbers(channel.config).includes(phoneNumber)) {
    throw ApiError.invalid(
      'contact.phone_number',
      phoneNumber,
      `The rbm agent of this channel is not launched yet (state '${state}'): in production it sends only to the channel's test numbers.`,
    );
  }
}

/** Rich business messaging to phone numbers through an agent, in a region; asynchronous sends. */
export const rbm: ChannelTypeDefinition = {
  type: 'rbm',
  modes: ['production', 'test'],
  capabilities: {
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
    schema: Type.Object({ agent_name: Str(100), agent_state: Type.Optional(Type.Union(RBM_AGENT_STATES.map((s) => Type.Literal(s)))) }, strict),
    secretFields: [],
    required: true,
    extraFields: { region: Type.Optional(Region) },
    prepareCreate(config, body) {
      const state = (config.agent_state as RbmAgentState | undefined) ?? 'new';
      if (state !== 'new' && state !== 'create_requested') {
        throw ApiError.invalid('rbm.agent_state', state, `A new agent can only be in state 'new' or 'create_requested'.`);
      }
      config.agent_state = state;
      config.region = (body.region as string | undefined) ?? RBM_REGIONS[0];
    },
  },
  view: {
    schema: Type.Object({ agent_name: Type.String(), agent_state: Type.String(), region: Type.Optional(Type.String()) }),
    // The specification's quirk: region is `rbm.region` in Get Channel and a top-level `region`
    // in list, create and update responses.
    render: ({ own, region, placement }) => {
      const agent: Record<string, unknown> = { agent_name: String(own.agent_name), agent_state: String(own.agent_state ?? 'new') };
      if (placement === 'get') return { rbm: { ...agent, region: String(region) } };
      return { rbm: agent, region: String(region) };
    },
  },
  update: {
    reverifyKeys: [],
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
      }
      if (body.region !== undefined) {
        if (body.region === null) throw ApiError.invalid('region', null, say.cannotBeNull('region'));
        config.region = body.region;
      }
    },
  },
  contactView: PHONE_NUMBER_SHOWN,
  send: { reservedMetadata: [], checkProduction },
  settings: NO_SETTINGS,
  inboundEndpoints: [],
  webChat: false,
};
