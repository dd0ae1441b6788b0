import { smsText } from '../../lib/sms-text.js';
import type { ChannelContext, OutboundMessage, PlatformResult, Recipient } from '../connector.js';

/**
 * A message as the provider's `POST /messages` body, as a pure function:
 * - `originator`: the channel's `sender_id` (a number as its digits, else the alphanumeric id);
 * - `recipients`: the contact's E.164 number as digits;
 * - `body`: the text (a file as its link, quick replies as numbered choices: src/lib/sms-text.ts);
 * - `reference`: the service's message id. The provider sends status reports only for messages
 *   with a reference, and a retried send finds a message the provider already took by it;
 * - `reportUrl`: the channel's own status URL, so reports reach this channel;
 * - `datacoding: auto`: the default `plain` replaces every character outside GSM 03.38;
 * - `validity` (s) from the message's time to live.
 */
type Json = Record<string, unknown>;

/** A sender id that is a phone number is sent as its digits. */
export function originatorOf(senderId: string): string {
  const text = senderId.trim();
  return /^\+?[\d\s().-]+$/.test(text) ? text.replace(/\D/g, '') : text;
}

export function renderMessage(channel: ChannelContext, recipient: Recipient, message: OutboundMessage, reportUrl: string): PlatformResult<Json> {
  const senderId = channel.config.sender_id;
  if (typeof senderId !== 'string' || senderId.trim() === '')
    return { ok: false, retryable: false, code: 'no_sender', message: 'The channel has no sender_id.' };
  const phone = recipient.phoneNumber;
  if (!phone) return { ok: false, retryable: false, code: 'no_recipient', message: 'The contact has no phone number.' };
  const body = smsText(message.content);
  if (body === null) return { ok: false, retryable: false, code: 'unsupported', message: `An SMS cannot carry content of type '${message.content.type}'.` };
  const params: Json = {
    originator: originatorOf(senderId),
    recipients: [phone.replace(/\D/g, '')],
    body,
    reference: message.id,
    reportUrl,
    datacoding: 'auto',
  };
  if (message.ttlMs !== undefined) params.validity = Math.max(1, Math.ceil(message.ttlMs / 1000));
  return { ok: true, value: params };
}
