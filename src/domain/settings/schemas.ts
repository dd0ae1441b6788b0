import { Type } from '@sinclair/typebox';
import { CHANNEL_TYPE_DEFINITIONS } from '../../channel-types/index.js';

/**
 * The settings objects of Get and Update Settings (messaging-api.md, Settings; contract.md §6).
 * Each channel type's definition holds its settings, their rules and their documented shape;
 * types without settings offer none: any key is refused.
 */
export { ServiceChatSettings } from '../../channel-types/service_chat.js';
export { SocialnetChatSettings } from '../../channel-types/socialnet_chat/settings.js';

export const SettingsResponse = Type.Union(
  [...CHANNEL_TYPE_DEFINITIONS.flatMap((d) => (d.settings.schema ? [d.settings.schema] : [])), Type.Object({}, { title: 'Types without settings' })],
  { $id: 'Settings' },
);
