import { Type } from '@sinclair/typebox';
import { PlatformUrl, settingsFragment } from '../../lib/env-settings.js';
import { DEFAULT_MAX_ATTACHMENT_BYTES, DEFAULT_SIGNATURE_MAX_AGE_S } from './options.js';

/** Port of the mailprovider stand-in above SANDBOX_PORT_BASE (sandbox/registry.ts). */
const STAND_IN_PORT_OFFSET = 5;

/** The environment variables of the email connector (docs/configuration.md). */
export const mailproviderSettings = settingsFragment(
  {
    MAILPROVIDER_API_URL: Type.Optional(PlatformUrl),
    MAILPROVIDER_API_URL_EU: Type.Optional(PlatformUrl),
    MAILPROVIDER_WEBHOOK_SIGNING_KEY: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    MAILPROVIDER_SIGNATURE_MAX_AGE_S: Type.Optional(Type.Integer({ minimum: 60, maximum: 7 * 24 * 3600 })),
    MAILPROVIDER_MAX_ATTACHMENT_BYTES: Type.Optional(Type.Integer({ minimum: 1, maximum: 25 * 1024 * 1024 })),
  },
  (v, context) => {
    const standIn = context.standInUrl(STAND_IN_PORT_OFFSET);
    const us = v.MAILPROVIDER_API_URL ?? standIn;
    return {
      /** The provider's API origin (US region). */
      apiUrl: us,
      /** The provider's API origin per region; the EU one defaults to the US one (the stand-in serves both). */
      apiUrls: { us, eu: v.MAILPROVIDER_API_URL_EU ?? us },
      /** The account's webhook signing key for channels that give none of their own. */
      webhookSigningKey: v.MAILPROVIDER_WEBHOOK_SIGNING_KEY,
      /** How old a signed call may be: the provider retries the same signed body for about 8 hours. */
      signatureMaxAgeMs: (v.MAILPROVIDER_SIGNATURE_MAX_AGE_S ?? DEFAULT_SIGNATURE_MAX_AGE_S) * 1000,
      /** Largest file a send downloads to attach. */
      maxAttachmentBytes: v.MAILPROVIDER_MAX_ATTACHMENT_BYTES ?? DEFAULT_MAX_ATTACHMENT_BYTES,
    };
  },
);

export type MailproviderEnvSettings = ReturnType<typeof mailproviderSettings.parse>;
