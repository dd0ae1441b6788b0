import { Type } from '@sinclair/typebox';
import type { ContactViewSpec, SendPolicies, SettingsSpec, UpdateRules } from './definition.js';

/** Pieces most definitions share. */
export const Str = (max = 1000) => Type.String({ minLength: 1, maxLength: max });
export const strict = { additionalProperties: false } as const;

/**
 * A channel's own sending rate, in the type object of asynchronous types (beyond the
 * specification): messages per second the send worker starts for the channel at most.
 */
export const SEND_RATE = Type.Integer({
  minimum: 1,
  maximum: 1000,
  description:
    "Beyond the specification: messages per second this channel sends at most (1 to 1000); a burst waits in the queue. Absent: the type's own rate (mobile: 30).",
});

/** The channel's own sending rate from its stored configuration, or null when it has none. */
export function configuredSendRate(config: Record<string, unknown>): number | null {
  const rate = config.send_rate;
  return typeof rate === 'number' && Number.isInteger(rate) && rate > 0 ? rate : null;
}

export const NO_SETTINGS: SettingsSpec = { names: [], check: {}, appliedOnPlatform: false };

/** Every metadata key is the client's own; no rules before a send. */
export const NO_SEND_POLICIES: SendPolicies = { reservedMetadata: [] };

/** Fields are copied; only the credentials are verified again. */
export const PLAIN_UPDATE: UpdateRules = { reverifyKeys: [], ownKeys: [] };

export const NO_CONTACT_FIELDS: ContactViewSpec = { phoneNumber: false, email: false };
export const PHONE_NUMBER_SHOWN: ContactViewSpec = { phoneNumber: true, email: false };
