import { Type } from '@sinclair/typebox';
import { PlatformUrl, settingsFragment } from '../../lib/env-settings.js';
import { DEFAULT_MANAGEMENT_SCOPE, DEFAULT_MESSAGING_SCOPE, DEFAULT_PRODUCT_KEY, DEFAULT_SIGNATURE_HEADER } from './options.js';

/** Port of the rbm stand-in above SANDBOX_PORT_BASE (sandbox/registry.ts). */
const STAND_IN_PORT_OFFSET = 4;

/** The environment variables of the rbm connector (docs/configuration.md). */
export const rbmSettings = settingsFragment(
  {
    // May hold `{region}`, replaced by the channel's regional host prefix.
    RBM_API_URL: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://' })),
    RBM_MANAGEMENT_URL: Type.Optional(PlatformUrl),
    RBM_TOKEN_URL: Type.Optional(PlatformUrl),
    RBM_SIGNATURE_HEADER: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,100}$' })),
    RBM_MESSAGING_SCOPE: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    RBM_MANAGEMENT_SCOPE: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    RBM_PRODUCT_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z]{1,100}$' })),
  },
  (v, context) => {
    const standIn = context.standInUrl(STAND_IN_PORT_OFFSET).replace(/\/+$/, '');
    return {
      apiUrl: v.RBM_API_URL ?? standIn,
      managementUrl: v.RBM_MANAGEMENT_URL ?? `${standIn}/mgmt`,
      tokenUrl: v.RBM_TOKEN_URL ?? `${standIn}/token`,
      signatureHeaderName: v.RBM_SIGNATURE_HEADER ?? DEFAULT_SIGNATURE_HEADER,
      messagingScope: v.RBM_MESSAGING_SCOPE ?? DEFAULT_MESSAGING_SCOPE,
      managementScope: v.RBM_MANAGEMENT_SCOPE ?? DEFAULT_MANAGEMENT_SCOPE,
      productKey: v.RBM_PRODUCT_KEY ?? DEFAULT_PRODUCT_KEY,
    };
  },
);

export type RbmEnvSettings = ReturnType<typeof rbmSettings.parse>;
