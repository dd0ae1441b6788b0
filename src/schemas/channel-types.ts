import { Type } from '@sinclair/typebox';

/**
 * The eight platform types, named exactly as the specification writes them. What each type takes
 * and does is its module (src/channel-types/modules.ts, one per name here, which the compiler
 * checks); the name is here because the schemas, the lowest layer, name the type in every message.
 */
export const CHANNEL_TYPES = ['service_chat', 'socialnet_chat', 'mobile', 'rbm', 'appmsg', 'appmsg_business_messages', 'botmsg', 'email'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const CHANNEL_MODES = ['production', 'test', 'shared'] as const;
export type ChannelMode = (typeof CHANNEL_MODES)[number];

export const ChannelTypeSchema = Type.Union(CHANNEL_TYPES.map((t) => Type.Literal(t)));

export function isChannelType(value: unknown): value is ChannelType {
  return typeof value === 'string' && (CHANNEL_TYPES as readonly string[]).includes(value);
}
