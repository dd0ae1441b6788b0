import { Type } from '@sinclair/typebox';
import { PlatformUrl, settingsFragment } from '../../lib/env-settings.js';
import { DEFAULT_JWT_ISSUER, DEFAULT_SIGNATURE_HEADER } from './options.js';

/** Port of the smsprovider stand-in above SANDBOX_PORT_BASE (sandbox/registry.ts). */
const STAND_IN_PORT_OFFSET = 2;

/** The environment variables of the mobile connector (docs/configuration.md). */
export const smsproviderSettings = settingsFragment(
  {
    SMSPROVIDER_API_URL: Type.Optional(PlatformUrl),
    SMSPROVIDER_SIGNATURE_HEADER: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,100}$' })),
    SMSPROVIDER_JWT_ISSUER: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  (v, context) => ({
    apiUrl: v.SMSPROVIDER_API_URL ?? context.standInUrl(STAND_IN_PORT_OFFSET),
    /** Header of the provider's signed JWT (its name carries the brand). */
    signatureHeaderName: v.SMSPROVIDER_SIGNATURE_HEADER ?? DEFAULT_SIGNATURE_HEADER,
    /** `iss` of the provider's JWT. */
    jwtIssuer: v.SMSPROVIDER_JWT_ISSUER ?? DEFAULT_JWT_ISSUER,
  }),
);

export type SmsproviderEnvSettings = ReturnType<typeof smsproviderSettings.parse>;
