import { Type } from '@sinclair/typebox';
import { PlatformUrl, settingsFragment } from '../../lib/env-settings.js';
import { CALLBACK_AUTHS, DEFAULT_PATH_SEGMENT, DEFAULT_SIGNATURE_HEADER, DEFAULT_STATUS_CODES, parseStatusCodes } from './options.js';

/** Port of the appmsg_business_messages stand-in above SANDBOX_PORT_BASE (sandbox/registry.ts). */
const STAND_IN_PORT_OFFSET = 6;

/** The environment variables of the appmsg_business_messages connector (docs/configuration.md). */
export const appmsgBusinessSettings = settingsFragment(
  {
    APPMSG_BUSINESS_API_URL: Type.Optional(PlatformUrl),
    APPMSG_BUSINESS_PATH_SEGMENT: Type.Optional(Type.String({ pattern: '^[a-z0-9]{1,50}$' })),
    APPMSG_BUSINESS_CALLBACK_AUTH: Type.Optional(Type.Union(CALLBACK_AUTHS.map((a) => Type.Literal(a)))),
    APPMSG_BUSINESS_SIGNATURE_HEADER: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,100}$' })),
    APPMSG_BUSINESS_STATUS_CODES: Type.Optional(
      Type.String({
        pattern:
          '^\\s*\\d{1,3}\\s*=\\s*(delivered|seen|expired|subscribe|unsubscribe)\\s*(,\\s*\\d{1,3}\\s*=\\s*(delivered|seen|expired|subscribe|unsubscribe)\\s*)*$',
      }),
    ),
    APPMSG_BUSINESS_SHARED_SENDER_ID: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$' })),
  },
  (v, context) => ({
    apiUrl: v.APPMSG_BUSINESS_API_URL ?? context.standInUrl(STAND_IN_PORT_OFFSET),
    pathSegment: v.APPMSG_BUSINESS_PATH_SEGMENT ?? DEFAULT_PATH_SEGMENT,
    callbackAuth: v.APPMSG_BUSINESS_CALLBACK_AUTH ?? 'url_token',
    signatureHeaderName: v.APPMSG_BUSINESS_SIGNATURE_HEADER ?? DEFAULT_SIGNATURE_HEADER,
    // The pattern above admits only well-formed maps.
    statusCodes: parseStatusCodes(v.APPMSG_BUSINESS_STATUS_CODES ?? DEFAULT_STATUS_CODES) ?? parseStatusCodes(DEFAULT_STATUS_CODES)!,
    /** The common sender identity of mode `shared`; unset: channels cannot be put in shared mode. */
    sharedSenderId: v.APPMSG_BUSINESS_SHARED_SENDER_ID ?? null,
  }),
);

export type AppmsgBusinessEnvSettings = ReturnType<typeof appmsgBusinessSettings.parse>;
