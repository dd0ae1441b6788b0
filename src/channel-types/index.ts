import { CHANNEL_TYPES, isChannelType, type ChannelType } from '../schemas/channel-types.js';
import type { Capabilities, ChannelTypeDefinition } from './definition.js';
import { CHANNEL_TYPE_MODULES } from './modules.js';

export type * from './definition.js';

/** The registry: one definition per channel type, each from its type's module (modules.ts). */
const BY_TYPE = Object.fromEntries(CHANNEL_TYPES.map((type) => [type, CHANNEL_TYPE_MODULES[type].definition])) as Record<ChannelType, ChannelTypeDefinition>;

/** Every definition, in the specification's order of the types. */
export const CHANNEL_TYPE_DEFINITIONS: readonly ChannelTypeDefinition[] = CHANNEL_TYPES.map((type) => BY_TYPE[type]);

export function definitionOf(type: ChannelType): ChannelTypeDefinition {
  return BY_TYPE[type];
}

export function capabilitiesOf(type: ChannelType): Capabilities {
  return BY_TYPE[type].capabilities;
}

/** Whether a stored type (any string) is one whose contacts talk through this service's chat server. */
export function isWebChatType(type: string): boolean {
  return isChannelType(type) && BY_TYPE[type].webChat;
}

/** The definition of the web chat type (the chat server's limits come from it). */
export const WEB_CHAT_DEFINITION: ChannelTypeDefinition = CHANNEL_TYPE_DEFINITIONS.find((d) => d.webChat)!;
