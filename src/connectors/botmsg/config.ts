import { Type } from '@sinclair/typebox';
import { PlatformUrl, settingsFragment } from '../../lib/env-settings.js';

/** Port of the botmsg stand-in above SANDBOX_PORT_BASE (sandbox/registry.ts). */
const STAND_IN_PORT_OFFSET = 1;

/** The environment variables of the botmsg connector (docs/configuration.md). */
export const botmsgSettings = settingsFragment(
  {
    BOTMSG_API_URL: Type.Optional(PlatformUrl),
    BOTMSG_SECRET_HEADER: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,100}$' })),
  },
  (v, context) => ({
    apiUrl: v.BOTMSG_API_URL ?? context.standInUrl(STAND_IN_PORT_OFFSET),
    /** Header in which the platform repeats the webhook's secret token (its name carries the brand). */
    secretHeaderName: v.BOTMSG_SECRET_HEADER ?? 'X-Botmsg-Bot-Api-Secret-Token',
  }),
);

export type BotmsgEnvSettings = ReturnType<typeof botmsgSettings.parse>;
