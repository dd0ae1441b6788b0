import { Type } from '@sinclair/typebox';
import { PlatformUrl, settingsFragment } from '../../lib/env-settings.js';

/** Port of the appmsg stand-in above SANDBOX_PORT_BASE (sandbox/registry.ts). */
const STAND_IN_PORT_OFFSET = 3;
const HeaderName = Type.String({ pattern: '^[A-Za-z0-9-]{1,100}$' });

/** The environment variables of the appmsg connector (docs/configuration.md). */
export const appmsgSettings = settingsFragment(
  {
    APPMSG_API_URL: Type.Optional(PlatformUrl),
    APPMSG_AUTH_HEADER: Type.Optional(HeaderName),
    APPMSG_SIGNATURE_HEADER: Type.Optional(HeaderName),
  },
  (v, context) => ({
    apiUrl: v.APPMSG_API_URL ?? context.standInUrl(STAND_IN_PORT_OFFSET),
    /** Header of the bot's token (its name carries the platform's brand). */
    authHeaderName: v.APPMSG_AUTH_HEADER ?? 'X-Appmsg-Auth-Token',
    /** Header of the callbacks' content signature (its name carries the platform's brand). */
    signatureHeaderName: v.APPMSG_SIGNATURE_HEADER ?? 'X-Appmsg-Content-Signature',
  }),
);

export type AppmsgEnvSettings = ReturnType<typeof appmsgSettings.parse>;
