import type { Clock } from '../lib/clock.js';
import { plainLogger, type Logger } from '../lib/logger.js';
import { timeOfId } from '../lib/ids.js';
import type { ClaimedDelivery, DeliveryOutcome, DeliveryQueue } from '../store/delivery-queue.js';
import type { Admission, Lease, TaskContext, TaskKind, TaskSource } from '../queue/task.js';
import { EndpointSlots, type Ticket } from './endpoint-slots.js';
import { answerSignal } from './receiver-limit.js';
import type { SendInput, SendResult } from './http-sender.js';
import { isSuccess, nextStep, type NextStep } from './retry-schedule.js';
import { webhookHeaders } from './signing.js';

/** A channel's webhook as it is at send time (a changed URL applies to pending webhook deliveries). */
export interface WebhookTarget {
  webhookId: number;
  url: string;
  secret: string;
  sslVerification: boolean;
}

/** Gives the current webhook of each channel that still has one. */
export type TargetLoader = (channelIds: readonly number[]) => Promise<Map<number, WebhookTarget>>;

export interface Sender {
  readonly userAgent: string;
  send(input: SendInput): Promise<SendResult>;
  /** Cuts off the calls in flight; they come back with `aborted` set. */
  abortAll(): void;
  close(): Promise<void>;
}

export interface WebhookTaskOptions {
  queue: DeliveryQueue;
  loadTargets: TargetLoader;
  sender: Sender;
  /** Due-ness, attempt times and the retry schedule run on this clock (tests inject one). */
  clock: Clock;
  /** Wall time, for how long a held delivery waited. */
  wallClock: Clock;
  nextId: () => number;
  retryScheduleSeconds: readonly number[];
  /** The most jitter adds to a retry's delay, as a fraction of it (WEBHOOK_RETRY_JITTER). */
  retryJitter: number;
  timeoutMs: number;
  concurrency: number;
  endpointConcurrency: number;
  accountConcurrency: number;
  logger: Logger;
  /** Told of each attempt's outcome (metrics), with the time from the event's commit when delivered. */
  onOutcome?: (outcome: 'delivered' | 'retry' | 'failed' | 'dropped', latencyMs: number | null) => void;
}

/** A claimed webhook delivery held until a slot of its receiver and its account is free. */
export interface HeldDelivery {
  row: ClaimedDelivery;
  target: WebhookTarget;
  leaseId: number;
  /** Wall time of the claim: a delivery that waited for a slot reads its webhook again. */
  claimedAt: number;
  /** Origin of the target's URL: the receiver whose slots it waits for. */
  origin: string;
}

/** What became of the claimed webhook deliveries. */
export interface WebhookTaskStats {
  delivered: number;
  failedTries: number;
  gaveUp: number;
  dropped: number;
}

/** A delivery held longer than this before its call re-reads the webhook (it may have changed). */
const STALE_TARGET_MS = 1000;
/** A claim brings at least this many rows of a busy channel: fewer claims and commits per row. */
const MIN_BATCH = 32;

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * Webhook deliveries as a task kind of the queue runner. The rows are the `deliveries` table
 * (store.deliveryQueue); a claim leaves out channels whose receiver is busy and accounts holding
 * their share, brings at most a batch per channel, and the slots (endpoint-slots.ts) start the
 * held deliveries with per-receiver and per-account caps, accounts taking turns. Running one
 * signs the event's stored bytes, calls the webhook, and records the attempt with the row's next
 * state from the retry schedule.
 */
export class WebhookDeliveries
  implements
    TaskKind<HeldDelivery, Ticket<HeldDelivery>, DeliveryOutcome>,
    TaskSource<HeldDelivery, DeliveryOutcome>,
    Admission<HeldDelivery, Ticket<HeldDelivery>>
{
  readonly name = 'webhook deliveries';
  readonly source = this;
  readonly admission = this;
  readonly leaseMs: number;
  readonly stats: WebhookTaskStats = { delivered: 0, failedTries: 0, gaveUp: 0, dropped: 0 };
  private readonly slots: EndpointSlots<HeldDelivery>;
  /** Rows of one channel per claim. */
  private readonly batch: number;
  /** The last claim left out the channels or accounts at their limits. */
  private leftOut = false;
  /** Origin of each channel's webhook, as last seen, and the reverse: lets a claim skip channels of busy endpoints. */
  private readonly channelOrigin = new Map<number, string>();
  private readonly originChannels = new Map<string, Set<number>>();
  /** Origins the last claim left rows of (busy, capped at `perChannel` rows, or over their hold). */
  private readonly hungry = new Set<string>();
  /** The same for accounts (over their share, or capped at `perAccount` rows in a shared claim). */
  private readonly hungryAccounts = new Set<number>();
  /** The last claim filled its scan window: more may be due. */
  private more = false;
  /** The attempt lines hold no credential by construction: written without the redaction's cost. */
  private readonly lines: Logger;

  constructor(private readonly o: WebhookTaskOptions) {
    this.batch = Math.max(o.endpointConcurrency, MIN_BATCH);
    this.lines = plainLogger(o.logger);
    this.slots = new EndpointSlots<HeldDelivery>(o.concurrency, o.endpointConcurrency, this.batch, o.accountConcurrency);
    // A held row may wait for the calls ahead of it at its endpoint or in its account (each up to
    // the timeout), then make its own call; the lease outlasts that.
    const rounds = Math.max(Math.ceil(this.slots.holdPerEndpoint / o.endpointConcurrency), Math.ceil(this.slots.holdPerAccount / this.slots.perAccount));
    this.leaseMs = (rounds + 1) * o.timeoutMs + 30_000;
  }

  // --- admission: the slots ---

  room(): number {
    return this.slots.room();
  }

  wantsClaim(ended?: Ticket<HeldDelivery>): boolean {
    if (this.refillDue()) return true;
    if (ended) {
      // The endpoint or account of a call that ended was left out of a claim, and can take a batch now.
      return (
        (this.hungry.has(ended.endpoint) && this.slots.canTakeBatch(ended.endpoint)) ||
        (this.hungryAccounts.has(ended.account) && this.slots.accountCanTakeBatch(ended.account))
      );
    }
    for (const origin of this.hungry) if (this.slots.canTakeBatch(origin)) return true;
    for (const account of this.hungryAccounts) if (this.slots.accountCanTakeBatch(account)) return true;
    return false;
  }

  /** The last claim found work, and enough room has come free for another worthwhile batch. */
  private refillDue(): boolean {
    return this.more && this.slots.room() >= Math.max(1, Math.min(this.batch, Math.floor(this.o.concurrency / 2)));
  }

  hold(held: HeldDelivery): boolean {
    const { row, origin } = held;
    if (this.slots.add(origin, row.accountId, `${row.channelId} ${origin}`, held)) return true;
    this.hungry.add(origin);
    this.hungryAccounts.add(row.accountId);
    return false;
  }

  next(): Ticket<HeldDelivery> | null {
    return this.slots.take();
  }

  finish(ticket: Ticket<HeldDelivery>): void {
    this.slots.finish(ticket);
  }

  drainWaiting(): HeldDelivery[] {
    return this.slots.drainWaiting();
  }

  get active(): number {
    return this.slots.active;
  }

  get held(): number {
    return this.slots.heldCount;
  }

  // --- source: the deliveries table ---

  async claim(lease: Lease, limit: number, context: TaskContext<DeliveryOutcome>): Promise<HeldDelivery[]> {
    const perChannel = this.batch;
    // Reading the earliest due rows only: a claim's cost grows with the rows it looks at.
    const scanLimit = Math.min(limit, perChannel * 2);
    const busy = new Set<string>();
    for (const origin of this.slots.endpoints()) if (!this.slots.canTakeBatch(origin)) busy.add(origin);
    const excludeChannels: number[] = [];
    for (const origin of busy) for (const channel of this.originChannels.get(origin) ?? []) excludeChannels.push(channel);
    // Accounts holding their share are left out, so one account's backlog cannot fill the claims.
    const busyAccounts: number[] = [];
    for (const account of this.slots.accounts()) if (!this.slots.accountCanTakeBatch(account)) busyAccounts.push(account);
    const rows = await this.o.queue.claim({
      now: this.o.clock.now(),
      leaseNow: lease.now,
      leaseUntil: lease.until,
      leaseId: lease.id,
      instanceId: lease.instanceId,
      limit,
      perChannel,
      perAccount: perChannel,
      scanLimit,
      excludeChannels: excludeChannels.slice(0, 500),
      excludeAccounts: busyAccounts.slice(0, 500),
    });
    this.leftOut = excludeChannels.length > 0 || busyAccounts.length > 0;
    // A full scan window: more may be due beyond it. (Rows the scan saw but left, those of a
    // channel at its batch size, make their endpoint hungry below.)
    this.more = rows.length >= scanLimit;
    // Origins left out of this claim (busy), or that got all the claim allowed them, probably
    // have more due: claim for them as soon as they can take another batch.
    this.hungry.clear();
    for (const origin of busy) this.hungry.add(origin);
    this.hungryAccounts.clear();
    for (const account of busyAccounts) this.hungryAccounts.add(account);
    if (rows.length === 0) return [];

    let targets: Map<number, WebhookTarget>;
    try {
      targets = await this.o.loadTargets([...new Set(rows.map((r) => r.channelId))]);
    } catch (error) {
      await this.o.queue
        .release(
          rows.map((r) => r.id),
          lease.id,
        )
        .catch(() => undefined);
      throw error;
    }
    const perChannelCount = new Map<number, number>();
    const perAccountCount = new Map<number, number>();
    const held: HeldDelivery[] = [];
    for (const row of rows) {
      perChannelCount.set(row.channelId, (perChannelCount.get(row.channelId) ?? 0) + 1);
      perAccountCount.set(row.accountId, (perAccountCount.get(row.accountId) ?? 0) + 1);
      const target = targets.get(row.channelId);
      if (!target || target.webhookId !== row.webhookId) {
        this.drop(row, lease.id, context);
        continue;
      }
      const origin = originOf(target.url);
      this.remember(row.channelId, origin);
      held.push({ row, target, leaseId: lease.id, claimedAt: lease.now, origin });
    }
    if (perAccountCount.size > 1) for (const [account, count] of perAccountCount) if (count >= perChannel) this.hungryAccounts.add(account);
    for (const [channelId, count] of perChannelCount) {
      const origin = this.channelOrigin.get(channelId);
      if (origin !== undefined && count >= perChannel) this.hungry.add(origin);
    }
    return held;
  }

  leftOutLimited(): boolean {
    return this.leftOut;
  }

  complete(outcomes: readonly DeliveryOutcome[]): Promise<void> {
    return this.o.queue.complete(outcomes);
  }

  async release(items: readonly HeldDelivery[]): Promise<void> {
    const byLease = new Map<number, number[]>();
    for (const { row, leaseId } of items) {
      let ids = byLease.get(leaseId);
      if (!ids) byLease.set(leaseId, (ids = []));
      ids.push(row.id);
    }
    for (const [leaseId, ids] of byLease) await this.o.queue.release(ids, leaseId);
  }

  releaseOrphans(ownInstance: number | null): Promise<number> {
    return this.o.queue.releaseOrphans(ownInstance);
  }

  subscribe(listener: () => void): () => Promise<void> {
    return this.o.queue.subscribe(listener);
  }

  private remember(channelId: number, origin: string): void {
    const before = this.channelOrigin.get(channelId);
    if (before === origin) return;
    if (before !== undefined) this.originChannels.get(before)?.delete(channelId);
    if (this.channelOrigin.size >= 10_000) {
      this.channelOrigin.clear();
      this.originChannels.clear();
    }
    this.channelOrigin.set(channelId, origin);
    let channels = this.originChannels.get(origin);
    if (!channels) {
      channels = new Set();
      this.originChannels.set(origin, channels);
    }
    channels.add(channelId);
  }

  // --- running one: the attempt ---

  async run(ticket: Ticket<HeldDelivery>, context: TaskContext<DeliveryOutcome>): Promise<void> {
    const held = ticket.delivery;
    const { row, leaseId } = held;
    let target: WebhookTarget | undefined = held.target;
    if (this.o.wallClock.now() - held.claimedAt > STALE_TARGET_MS) {
      try {
        target = (await this.o.loadTargets([row.channelId])).get(row.channelId);
      } catch {
        target = held.target; // the store is unreachable: the webhook as claimed will do
      }
      if (!target || target.webhookId !== row.webhookId) {
        this.drop(row, leaseId, context);
        return;
      }
    }
    const body = Buffer.from(row.body, 'utf8');
    const headers = webhookHeaders(
      {
        eventId: row.eventId,
        eventType: row.eventType,
        deliveryId: row.id,
        attempt: row.attempts + 1,
        body,
        secret: target.secret,
        correlationId: row.correlationId,
      },
      this.o.sender.userAgent,
    );
    const attemptedAt = this.o.clock.now();
    let result: SendResult;
    try {
      result = await this.o.sender.send({ url: target.url, headers, body, sslVerification: target.sslVerification });
    } catch (error) {
      result = { statusCode: null, durationMs: 0, responseExcerpt: null, error: error instanceof Error ? error.message : String(error), aborted: false };
    }
    if (result.aborted) {
      // Cut off by shutdown: not the receiver's failure, so not an attempt. Another run sends it.
      await this.o.queue.release([row.id], leaseId).catch(() => undefined);
      return;
    }
    this.slots.observe(ticket, performance.now(), result.durationMs, answerSignal(result.statusCode));
    const now = this.o.clock.now();
    const step = nextStep(row.attempts, result.statusCode, now, this.o.retryScheduleSeconds, {
      retryAfterMs: result.retryAfterMs,
      jitter: this.o.retryJitter,
    });
    if (step.status === 'delivered') this.stats.delivered += 1;
    else this.stats.failedTries += 1;
    // An event's id holds the time it was made (same clock), in the transaction that committed it.
    this.o.onOutcome?.(
      step.status === 'delivered' ? 'delivered' : step.status === 'failed' ? 'failed' : 'retry',
      step.status === 'delivered' ? now - timeOfId(row.eventId) : null,
    );
    // One line per attempt, with the event's correlation id; never the URL (it may hold a
    // receiver's own token), the headers or the body. The last failed try is a warning. Built
    // only when it is written: a delivery is the worker's hot path.
    if (step.status === 'failed') this.stats.gaveUp += 1;
    if (step.status === 'failed' || this.lines.isLevelEnabled('info')) this.logAttempt(row, step.status, result);
    const lastError = result.error ?? (isSuccess(result.statusCode) ? null : `The receiver answered ${String(result.statusCode)}.`);
    context.record({
      id: row.id,
      leaseId,
      status: step.status,
      attempts: step.attempts,
      nextAttemptAt: step.nextAttemptAt,
      lastStatusCode: result.statusCode,
      lastError,
      updatedAt: now,
      attempt: {
        id: this.o.nextId(),
        attemptedAt,
        url: target.url,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        responseExcerpt: result.responseExcerpt,
        error: result.error,
      },
    });
  }

  /** The one line of an attempt (`warn` for the last failed try). */
  private logAttempt(row: ClaimedDelivery, status: NextStep['status'], result: SendResult): void {
    const line = {
      correlationId: row.correlationId,
      deliveryId: row.id,
      eventId: row.eventId,
      event: row.eventType,
      channelId: row.channelId,
      attempt: row.attempts + 1,
      outcome: status === 'pending' ? 'retry' : status,
      statusCode: result.statusCode,
      ms: Math.round(result.durationMs),
      ...(result.error ? { error: result.error } : {}),
    };
    if (status === 'failed') this.lines.warn(line, 'webhook delivery failed after its last try');
    else this.lines.info(line, 'webhook delivery attempt');
  }

  /** The webhook was removed (or replaced) after the event: there is nothing to send it to. */
  private drop(row: ClaimedDelivery, leaseId: number, context: TaskContext<DeliveryOutcome>): void {
    const now = this.o.clock.now();
    this.stats.dropped += 1;
    this.o.onOutcome?.('dropped', null);
    this.lines.info(
      { correlationId: row.correlationId, deliveryId: row.id, eventId: row.eventId, event: row.eventType, channelId: row.channelId, outcome: 'dropped' },
      'webhook delivery attempt',
    );
    context.record({
      id: row.id,
      leaseId,
      status: 'dropped',
      attempts: row.attempts,
      nextAttemptAt: now,
      lastStatusCode: null,
      lastError: 'The webhook was removed.',
      updatedAt: now,
      attempt: null,
    });
  }

  abort(): void {
    this.o.sender.abortAll();
  }
}
