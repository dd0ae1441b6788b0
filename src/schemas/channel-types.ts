import { Type } from '@sinclair/typebox';

/** The eight platform types, named exactly as the specification writes them. */
export const CHANNEL_TYPES = ['service_chat', 'socialnet_chat', 'mobile', 'rbm', 'appmsg', 'appmsg_business_messages', 'botmsg', 'email'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const CHANNEL_MODES = ['production', 'test', 'shared'] as const;
export type ChannelMode = (typeof CHANNEL_MODES)[number];

/** Which modes each type takes (the specification's mode table; production everywhere). */
export const MODES_BY_TYPE: Record<ChannelType, readonly ChannelMode[]> = {
  service_chat: ['production'],
  socialnet_chat: ['production'],
  mobile: ['production', 'test'],
  rbm: ['production', 'test'],
  appmsg: ['production'],
  appmsg_business_messages: ['production', 'test', 'shared'],
  botmsg: ['production'],
  email: ['production'],
};

export const ChannelTypeSchema = Type.Union(CHANNEL_TYPES.map((t) => Type.Literal(t)));

export function isChannelType(value: unknown): value is ChannelType {
  return typeof value === 'string' && (CHANNEL_TYPES as readonly string[]).includes(value);
}

export const RBM_AGENT_STATES = ['new', 'create_requested', 'created', 'launch_requested', 'launched'] as const;
export type RbmAgentState = (typeof RBM_AGENT_STATES)[number];
