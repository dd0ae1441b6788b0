import { CHANNEL_TYPES, type ChannelType } from '../schemas/channel-types.js';
import type { SettingsFragment } from '../lib/env-settings.js';
import type { ChannelTypeModule } from './module.js';
import { serviceChatModule } from '../connectors/service_chat/module.js';
import { socialnetChatModule } from '../connectors/socialnet_chat/module.js';
import { mobileModule } from '../connectors/mobile/module.js';
import { rbmModule } from '../connectors/rbm/module.js';
import { appmsgModule } from '../connectors/appmsg/module.js';
import { appmsgBusinessMessagesModule } from '../connectors/appmsg_business_messages/module.js';
import { botmsgModule } from '../connectors/botmsg/module.js';
import { emailModule } from '../connectors/email/module.js';

/**
 * THE list of channel types: one line per type, its module (its folder's module.ts). Every
 * registry is derived from it: definitions (channel-types/index.ts), connectors and their
 * settings (connectors/registry-defaults.ts), failure codes (connectors/failure-codes.ts), trial
 * drivers (trial/index.ts), stand-in ports (sandbox/registry.ts), settings schemas. The compiler
 * holds it to the type names of schemas/channel-types.ts: one module per name, no other.
 */
export const CHANNEL_TYPE_MODULES = {
  service_chat: serviceChatModule,
  socialnet_chat: socialnetChatModule,
  mobile: mobileModule,
  rbm: rbmModule,
  appmsg: appmsgModule,
  appmsg_business_messages: appmsgBusinessMessagesModule,
  botmsg: botmsgModule,
  email: emailModule,
} satisfies { [T in ChannelType]: ChannelTypeModule<T, any> };

/** Every module, in the specification's order of the types. */
export const TYPE_MODULES: readonly ChannelTypeModule[] = CHANNEL_TYPES.map((type) => CHANNEL_TYPE_MODULES[type]);

type Modules = typeof CHANNEL_TYPE_MODULES;
type SettingsOfModule<M> = M extends ChannelTypeModule<any, infer S> ? S : never;

/** The settings fragment of each type that has one, under the type's name. */
export type TypeSettingsFragments = {
  [T in keyof Modules as undefined extends SettingsOfModule<Modules[T]> ? never : T]: SettingsFragment<any, SettingsOfModule<Modules[T]>>;
};

/** The fragments of every type with settings, named by type (connectors/registry-defaults.ts adds the shared one). */
export const TYPE_SETTINGS = Object.fromEntries(TYPE_MODULES.flatMap((m) => (m.settings ? [[m.type, m.settings] as const] : []))) as TypeSettingsFragments;
