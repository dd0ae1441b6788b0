import { Type } from '@sinclair/typebox';
import { PlatformUrl, settingsFragment } from '../../lib/env-settings.js';

/** Port of the socialnet_chat stand-in above SANDBOX_PORT_BASE (sandbox/registry.ts). */
const STAND_IN_PORT_OFFSET = 0;

/**
 * The environment variables of the socialnet_chat connector (docs/configuration.md): the platform's
 * address, the app the service runs as, and the brand-carrying names of its protocol.
 */
export const socialnetChatSettings = settingsFragment(
  {
    SOCIALNET_API_URL: Type.Optional(PlatformUrl),
    SOCIALNET_API_VERSION: Type.Optional(Type.String({ pattern: '^v[0-9]+\\.[0-9]+$' })),
    SOCIALNET_APP_ID: Type.Optional(Type.String({ minLength: 1 })),
    SOCIALNET_APP_SECRET: Type.Optional(Type.String({ minLength: 1 })),
    SOCIALNET_VERIFY_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
    SOCIALNET_TOKEN_PREFIX: Type.Optional(Type.String({ pattern: '^[a-z]{1,10}$' })),
    SOCIALNET_PROFILE_EDGE: Type.Optional(Type.String({ pattern: '^[a-z_]{1,60}_profile$' })),
    SOCIALNET_SUBSCRIBE_APP: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  },
  (v, context) => ({
    apiUrl: v.SOCIALNET_API_URL ?? context.standInUrl(STAND_IN_PORT_OFFSET),
    apiVersion: v.SOCIALNET_API_VERSION ?? 'v25.0',
    appId: v.SOCIALNET_APP_ID,
    appSecret: v.SOCIALNET_APP_SECRET,
    verifyToken: v.SOCIALNET_VERIFY_TOKEN,
    tokenPrefix: v.SOCIALNET_TOKEN_PREFIX ?? 'sn',
    profileEdge: v.SOCIALNET_PROFILE_EDGE ?? 'socialnet_chat_profile',
    subscribeApp: (v.SOCIALNET_SUBSCRIBE_APP ?? 'true') === 'true',
  }),
);

export type SocialnetChatEnvSettings = ReturnType<typeof socialnetChatSettings.parse>;
