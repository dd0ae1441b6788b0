import { CHANNEL_TYPES, isChannelType, type ChannelType } from '../schemas/channel-types.js';
import type { Capabilities, ChannelTypeDefinition } from './definition.js';
import { serviceChat } from './service_chat.js';
import { socialnetChat } from './socialnet_chat/index.js';
import { mobile } from './mobile.js';
import { rbm } from './rbm.js';
import { appmsg } from './appmsg.js';
import { appmsgBusinessMessages } from './appmsg_business_messages.js';
import { botmsg } from './botmsg.js';
import { email } from './email.js';

export type * from './definition.js';

/** The registry: one definition per channel type. */
const BY_TYPE: Record<ChannelType, ChannelTypeDefinition> = {
  service_chat: serviceChat,
  socialnet_chat: socialnetChat,
  mobile,
  rbm,
  appmsg,
  appmsg_business_messages: appmsgBusinessMessages,
  botmsg,
  email,
};

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
