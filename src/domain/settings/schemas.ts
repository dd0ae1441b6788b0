import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { CHANNEL_TYPE_DEFINITIONS } from '../../channel-types/index.js';

/**
 * The settings objects of Get and Update Settings (messaging-api.md, Settings; contract.md §6).
 * Each channel type's definition holds its settings, their rules and their documented shape;
 * types without settings offer none: any key is refused.
 */

/** The documented settings object of each type that has settings, named `<Type>Settings` (ServiceChatSettings ...). */
export const TYPE_SETTINGS_SCHEMAS: ReadonlyArray<{ name: string; schema: TObject }> = CHANNEL_TYPE_DEFINITIONS.flatMap((d) =>
  d.settings.schema ? [{ name: `${d.type.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase())}Settings`, schema: d.settings.schema }] : [],
);

/** The parts of those settings objects that the document names, by their names. */
export const TYPE_SETTINGS_COMPONENTS: Readonly<Record<string, TSchema>> = Object.assign(
  {},
  ...CHANNEL_TYPE_DEFINITIONS.map((d) => d.settings.components ?? {}),
);

export const SettingsResponse = Type.Union([...TYPE_SETTINGS_SCHEMAS.map((s) => s.schema), Type.Object({}, { title: 'Types without settings' })], {
  $id: 'Settings',
});
