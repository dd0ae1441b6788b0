import type { ChannelType } from '../schemas/channel-types.js';
import type { MessageFailedCode } from '../schemas/message-status.js';
import { CHANNEL_TYPE_MODULES } from '../channel-types/modules.js';

/**
 * Which `message_failed` code a platform's refusal of a send amounts to. Failures keep the
 * platform's own code (`PlatformFailure.code`); each type's module reads it as 2 (the user blocks
 * the sender), 3 (the platform knows no such user) or 4 (its time ran out) in its `failureCodes`.
 * Everything else (refusals, rate limits, outages, timeouts) is 1. Classified by code only, never
 * by the reason's text.
 */
export function messageFailedCode(type: ChannelType, platformCode: string): MessageFailedCode {
  const table: Readonly<Record<string, MessageFailedCode>> = CHANNEL_TYPE_MODULES[type].failureCodes ?? {};
  const lookup = (key: string) => (Object.hasOwn(table, key) ? table[key] : undefined);
  return lookup(platformCode) ?? lookup(platformCode.split('/')[0] ?? '') ?? 1;
}
