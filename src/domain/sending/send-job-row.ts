import type { WriteUnit } from '../../store/write-unit.js';
import { definitionOf } from '../../channel-types/index.js';
import { configuredSendRate } from '../../channel-types/common.js';
import type { ChannelType } from '../../schemas/channel-types.js';
import type { Metadata } from '../../schemas/content.js';
import { SEND_EXPIRY_MS, SEND_MAX_ATTEMPTS } from './send-policy.js';
import { timeToLiveJobRow } from './time-to-live-row.js';

/** The `kind` of send jobs: one per queued message. */
export const SEND_JOB_KIND = 'send';

/** What a send job's row carries: the message, its contact, and its channel's rate when it was queued. */
export interface SendJobInput {
  messageId: number;
  contactId: number;
  /** Messages per second the channel sends at most when it was queued (sendRateOf); null: no limit. */
  rate: number | null;
  /** The correlation id of the request that sent the message (lib/correlation.ts): its attempts' log lines and events carry it. */
  correlationId?: string | null;
}

export function encodeSendJob(input: SendJobInput): string {
  const payload: Record<string, unknown> = { message_id: String(input.messageId), contact_id: String(input.contactId) };
  if (input.rate !== null) payload.rate = input.rate;
  if (input.correlationId) payload.correlation_id = input.correlationId;
  return JSON.stringify(payload);
}

/**
 * The channel's sending rate: its own (`send_rate` in its type object, beyond the specification),
 * else its type's (channel-types/*.ts `send.ratePerSecond`); null: no limit.
 */
export function sendRateOf(type: ChannelType, config: Record<string, unknown>): number | null {
  return configuredSendRate(config) ?? definitionOf(type).send.ratePerSecond ?? null;
}

type JobRow = NonNullable<WriteUnit['insert']['jobs']>[number];

/**
 * The jobs of a message queued at `now`, written in the Send Message write unit: its send job,
 * and for types whose messages have a time to live (`send.timeToLiveMs`) the check of that time
 * to live. The send job then expires with the message's time to live (the platform is
 * given what is left of it); otherwise after the service's 24 hours.
 */
export function sendJobRows(
  job: {
    id: number;
    accountId: number;
    channelId: number;
    channelType: ChannelType;
    channelConfig: Record<string, unknown>;
    messageId: number;
    contactId: number;
    metadata: Metadata | undefined;
    correlationId?: string | null;
  },
  now: number,
  nextId: () => number,
): JobRow[] {
  const ttlMs = definitionOf(job.channelType).send.timeToLiveMs?.(job.channelConfig, job.metadata) ?? null;
  const send: JobRow = {
    id: job.id,
    account_id: job.accountId,
    channel_id: job.channelId,
    message_id: job.messageId,
    kind: SEND_JOB_KIND,
    payload: encodeSendJob({
      messageId: job.messageId,
      contactId: job.contactId,
      rate: sendRateOf(job.channelType, job.channelConfig),
      correlationId: job.correlationId ?? null,
    }),
    status: 'pending',
    attempts: 0,
    max_attempts: SEND_MAX_ATTEMPTS,
    run_at: now,
    expires_at: now + (ttlMs ?? SEND_EXPIRY_MS),
    last_error: null,
    created_at: now,
    updated_at: now,
  };
  if (ttlMs === null) return [send];
  return [
    send,
    timeToLiveJobRow(
      { id: nextId(), accountId: job.accountId, channelId: job.channelId, messageId: job.messageId, correlationId: job.correlationId ?? null },
      now + ttlMs,
      now,
    ),
  ];
}
