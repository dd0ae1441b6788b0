import type { Store } from '../../store/store.js';
import type { SendingMessage } from '../../store/repos/messages.js';
import type { ClaimedJob, EndedJob } from '../../store/job-queue.js';
import type { JobKind, JobResult } from '../../queue/jobs-task.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { Content, Metadata } from '../../schemas/content.js';
import type { MessageFailedCode } from '../../schemas/message-status.js';
import { channelContextOf, type ConnectorRegistry, type ConversationEntry, type PlatformFailure, type Recipient } from '../../connectors/connector.js';
import { definitionOf } from '../../channel-types/index.js';
import { messageFailedCode } from '../../connectors/failure-codes.js';
import type { Outbox } from '../events/outbox.js';
import type { Channel } from '../channels/view.js';
import { messageFailedEvent, storedFailure } from '../messages/failed-event.js';
import { SEND_JOB_KIND, encodeSendJob, sendRateOf, type SendJobInput } from './send-job-row.js';
import { sendRetryDelayMs } from './send-policy.js';
import { SendingMessageReader } from './message-reader.js';
import { storedCorrelationId } from '../../lib/correlation.js';

export interface SendJobDeps {
  store: Store;
  clock: Clock;
  outbox: Outbox;
  connectors: ConnectorRegistry;
  /** The channel by id (the per-process channel cache). */
  channels: { find(accountId: number, id: number): Promise<Channel | undefined> };
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Jitter of the retry waits (tests fix it). */
  random?: () => number;
  /**
   * Told of each run's outcome (metrics): `latencyMs` from the message's commit when the platform
   * took it, `retryAfterMs` when the platform asked for a wait.
   */
  onOutcome?: (type: string, outcome: 'sent' | 'retry' | 'failed' | 'dropped', latencyMs: number | null, retryAfterMs?: number) => void;
}

/** The stored reason of a message whose send job ran out of attempts without a failure that settled it. */
const EXHAUSTED_REASON = 'No attempt to send it succeeded.';
/** Channels whose rate is kept (a bound, not a cache size that matters: channels sending at once). */
const MAX_RATES_KEPT = 10_000;

function decodeSendJob(payload: string): SendJobInput {
  const value = JSON.parse(payload) as { message_id?: unknown; contact_id?: unknown; rate?: unknown; correlation_id?: unknown };
  const messageId = Number(value.message_id);
  if (!Number.isSafeInteger(messageId) || messageId <= 0) throw new Error('no message_id');
  return {
    messageId,
    contactId: Number(value.contact_id),
    rate: typeof value.rate === 'number' && value.rate > 0 ? value.rate : null,
    correlationId: storedCorrelationId(value.correlation_id),
  };
}

function recipientOf(message: SendingMessage): Recipient {
  return {
    id: String(message.contact_id),
    externalId: message.contact_external_id,
    phoneNumber: message.phone_number,
    userRef: message.user_ref,
    email: message.email,
    name: message.name,
  };
}

/**
 * The send job of an asynchronous type (one per queued message, written with the message): sends
 * it through the type's `sender` and records the result on the message.
 * - The message or its contact or channel gone (deleted): the job ends, nothing is sent.
 * - A job running again (attempts > 1: a retry, or a worker that died with the outcome unknown)
 *   first asks the platform (`sentLookup`, when the type has it) whether it already has the
 *   message under our reference; if so the message is `sent` without a second send.
 * - Taken: the message is `sent` with the platform's id (status reports name it), written with
 *   the job's outcome in the runner's group commit; the messages of the jobs a claim starts are
 *   read in one query.
 * - A retryable failure is tried again (send-policy.ts); a Retry-After also pauses the channel.
 * - A permanent failure, the last attempt, or a retry that would come after the expiry: the
 *   message is `failed` and `message_failed` is written in the same transaction.
 * - A job that ends without running to such an end (`onEnded`: not run within the 24 hours, or
 *   its last attempt lost with its process or thrown): the message fails the same way, with code
 *   4 past the 24 hours, else 1 (unless the platform, asked by reference, has it: then `sent`).
 * - The channel's rate (`rateOf`) is its own `send_rate` or its type's, read from the channel
 *   each time one of its jobs runs; a job's payload has the rate of when it was queued.
 * Each step is conditional on the message's state, so an attempt that runs twice records once.
 */
export function sendJobKind(deps: SendJobDeps): JobKind<SendJobInput> {
  const random = deps.random ?? Math.random;

  async function fail(
    job: { accountId: number },
    input: SendJobInput,
    message: SendingMessage,
    channel: Channel,
    code: MessageFailedCode,
    reason: string | undefined,
  ): Promise<void> {
    let wake = false;
    await deps.store.transaction(async (tx) => {
      if (!(await tx.messages.markFailed(job.accountId, message.id, storedFailure(code, reason), 'queued'))) return;
      const contact = { id: message.contact_id, phone_number: message.phone_number, user_ref: message.user_ref };
      const event = messageFailedEvent(channel, contact, message.id, code);
      const appended = await deps.outbox.append(tx, { ...event, correlationId: input.correlationId ?? null });
      wake = appended.deliveryId !== null;
    });
    if (wake) deps.outbox.wake();
  }

  /** A failed attempt: tried again while attempts and time are left, else the message fails. */
  async function failed(job: ClaimedJob, input: SendJobInput, message: SendingMessage, channel: Channel, failure: PlatformFailure): Promise<JobResult> {
    const error = `${failure.code}: ${failure.message}`;
    if (failure.retryable) {
      const delay = sendRetryDelayMs(job.attempts, failure.retryAfterMs, random);
      const runAt = deps.clock.now() + delay;
      const expired = job.expiresAt !== null && runAt >= job.expiresAt;
      if (job.attempts < job.maxAttempts && !expired) {
        deps.onOutcome?.(channel.type, 'retry', null, failure.retryAfterMs);
        return {
          ok: false,
          retryable: true,
          error,
          retryAfterMs: delay,
          ...(failure.retryAfterMs !== undefined ? { pauseChannelMs: failure.retryAfterMs } : {}),
        };
      }
      deps.onOutcome?.(channel.type, 'failed', null, failure.retryAfterMs);
      await fail(job, input, message, channel, expired ? 4 : messageFailedCode(channel.type, failure.code), failure.message);
      return { ok: false, retryable: false, error };
    }
    deps.onOutcome?.(channel.type, 'failed', null, failure.retryAfterMs);
    await fail(job, input, message, channel, messageFailedCode(channel.type, failure.code), failure.message);
    return { ok: false, retryable: false, error };
  }

  /** Taken: the message is marked `sent` with the job's outcome, in the runner's next group commit. */
  function sent(job: ClaimedJob, message: SendingMessage, channel: Channel, externalIds: readonly string[]): JobResult {
    deps.onOutcome?.(channel.type, 'sent', deps.clock.now() - message.created_at);
    return { ok: true, sent: { accountId: job.accountId, messageId: message.id, externalId: externalIds[0] ?? null } };
  }

  /** The contact's earlier messages the platform knows, oldest first, for types that thread them (their definition's depth). */
  async function conversationOf(accountId: number, message: SendingMessage): Promise<ConversationEntry[] | undefined> {
    const channel = await deps.channels.find(accountId, message.channel_id);
    const depth = channel ? definitionOf(channel.type).send.conversationDepth : undefined;
    if (!depth) return undefined;
    const { rows } = await deps.store.messages.listForContact(accountId, message.channel_id, message.contact_id, depth + 1, 0);
    const entries: ConversationEntry[] = [];
    for (const row of rows) {
      if (row.id >= message.id || row.external_id === null || row.status === 'failed') continue;
      entries.push({
        externalId: row.external_id,
        direction: row.direction === 'received' ? 'received' : 'sent',
        ...(row.metadata === null ? {} : { metadata: JSON.parse(row.metadata) as Record<string, unknown> }),
      });
    }
    return entries.slice(0, depth).reverse();
  }

  const messages = new SendingMessageReader((keys) => deps.store.messages.forSendMany(keys));

  /**
   * The channels' rates as last read from the channels themselves: a rate changed after jobs were
   * queued (their payloads carry the rate of then) counts from the channel's next job on.
   */
  const rates = new Map<number, number | null>();

  /** A job that ran out of attempts or time: a message the platform has after all is `sent`, else it fails (code 4 past the 24 hours, else 1). */
  async function ended(input: SendJobInput, job: EndedJob): Promise<void> {
    const message = await deps.store.messages.forSend(job.accountId, input.messageId);
    if (!message || message.status !== 'queued') return;
    const channel = await deps.channels.find(job.accountId, message.channel_id);
    if (!channel) return;
    deps.logger.warn(
      { correlationId: input.correlationId ?? null, jobId: job.id, messageId: String(message.id), attempts: job.attempts, outcome: job.reason },
      'send job ended without sending',
    );
    if (job.reason === 'expired') {
      deps.onOutcome?.(channel.type, 'failed', null);
      return fail(job, input, message, channel, 4, undefined);
    }
    // Its last attempt may have reached the platform before its process died.
    const lookup = job.attempts > 0 ? deps.connectors.role(channel.type, 'sentLookup') : undefined;
    if (lookup) {
      const found = await lookup
        .findSent(channelContextOf(channel), String(message.id), { since: message.created_at, recipient: recipientOf(message) })
        .catch(() => null);
      if (found?.ok && found.value) {
        await deps.store.messages.markSent(job.accountId, message.id, found.value.externalIds[0] ?? null);
        deps.onOutcome?.(channel.type, 'sent', deps.clock.now() - message.created_at);
        return;
      }
    }
    deps.onOutcome?.(channel.type, 'failed', null);
    await fail(job, input, message, channel, 1, EXHAUSTED_REASON);
  }

  /**
   * The one log line of an attempt, with the correlation id of the request that sent the message:
   * `sent` (with the platform's id), `retry`, `failed`, or `skipped` (the message was gone or
   * settled already). Never the content or the recipient.
   */
  function logAttempt(input: SendJobInput, job: ClaimedJob, result: JobResult, ms: number): void {
    const line: Record<string, unknown> = {
      correlationId: input.correlationId ?? null,
      jobId: job.id,
      messageId: String(input.messageId),
      channelId: job.channelId,
      attempt: job.attempts,
      ms: Math.round(ms),
    };
    if (result.ok) {
      line.outcome = result.sent ? 'sent' : 'skipped';
      if (result.sent) line.externalId = result.sent.externalId;
      deps.logger.info(line, 'send job attempt');
      return;
    }
    line.outcome = result.retryable ? 'retry' : 'failed';
    line.error = result.error;
    if (result.retryable) {
      if (result.retryAfterMs !== undefined) line.retryInMs = result.retryAfterMs;
      deps.logger.info(line, 'send job attempt');
    } else deps.logger.warn(line, 'send job attempt');
  }

  return {
    kind: SEND_JOB_KIND,
    encode: encodeSendJob,
    decode: decodeSendJob,
    rateOf: (input, job) => (rates.has(job.channelId) ? (rates.get(job.channelId) ?? null) : input.rate),
    onEnded: ended,
    prefetch: async (jobs) => {
      const keys: { accountId: number; id: number }[] = [];
      for (const job of jobs) if (job.messageId !== null) keys.push({ accountId: job.accountId, id: job.messageId });
      await messages.readAhead(keys);
    },
    async handle(input, job): Promise<JobResult> {
      const started = performance.now();
      const result = await attempt(input, job);
      logAttempt(input, job, result, performance.now() - started);
      return result;
    },
  };

  async function attempt(input: SendJobInput, job: ClaimedJob): Promise<JobResult> {
    const message = await messages.read(job.accountId, input.messageId);
    // Deleted with its contact or channel: dropped, never sent. Already sent or failed: done.
    if (!message) deps.onOutcome?.('unknown', 'dropped', null);
    if (!message || message.status !== 'queued') return { ok: true };
    const channel = await deps.channels.find(job.accountId, message.channel_id);
    if (!channel) {
      deps.onOutcome?.('unknown', 'dropped', null);
      return { ok: true };
    }
    if (rates.size >= MAX_RATES_KEPT && !rates.has(job.channelId)) rates.clear();
    rates.set(job.channelId, sendRateOf(channel.type, channel.config));
    const sender = deps.connectors.role(channel.type, 'sender');
    if (!sender) {
      return failed(job, input, message, channel, {
        ok: false,
        retryable: true,
        code: 'no_connector',
        message: `This service has no ${channel.type} connector to send with.`,
      });
    }
    const context = channelContextOf(channel);
    if (job.attempts > 1) {
      const lookup = deps.connectors.role(channel.type, 'sentLookup');
      if (lookup) {
        const found = await lookup.findSent(context, String(message.id), { since: message.created_at, recipient: recipientOf(message) });
        // A lookup that cannot tell is no reason to send again: the attempt fails and is retried.
        if (!found.ok) return failed(job, input, message, channel, found);
        // The platform had the message already: recorded, not sent again.
        if (found.value) return sent(job, message, channel, found.value.externalIds);
      }
    }
    const now = deps.clock.now();
    const conversation = await conversationOf(job.accountId, message);
    const result = await sender.send(context, recipientOf(message), {
      id: String(message.id),
      content: JSON.parse(message.content) as Content,
      ...(message.metadata === null ? {} : { metadata: JSON.parse(message.metadata) as Metadata }),
      ...(job.expiresAt === null ? {} : { ttlMs: Math.max(1000, job.expiresAt - now) }),
      ...(conversation ? { conversation } : {}),
    });
    if (result.ok) return sent(job, message, channel, result.value.externalIds);
    return failed(job, input, message, channel, result);
  }
}
