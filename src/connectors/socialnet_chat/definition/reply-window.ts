import type { ContactActivity } from '../../../channel-types/definition.js';

/**
 * The message type when the client gives neither `type` nor `tag` (messaging-api.md, reserved
 * metadata keys): `response` inside the 24-hour window after the contact's last message, button
 * press or opt-in, and under the 24+1 policy for the first message after the window closed;
 * `update` otherwise (a proactive message). The platform has the last word: one that enforces the
 * window without the +1 refuses such a message (502 with its reason), and the client can send
 * with a message tag instead.
 */
export const REPLY_WINDOW_MS = 24 * 60 * 60 * 1000;

export function automaticMessageType(now: number, activity: ContactActivity): 'response' | 'update' {
  const { lastInboundAt, lastSentAt } = activity;
  if (lastInboundAt === null) return 'update';
  const windowEnd = lastInboundAt + REPLY_WINDOW_MS;
  if (now <= windowEnd) return 'response';
  // 24+1: one more message after the window closed, when none was sent since.
  return lastSentAt === null || lastSentAt <= windowEnd ? 'response' : 'update';
}
