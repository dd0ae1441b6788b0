/**
 * The webhook delivery queue as the workers see it. The rows are the `deliveries` table; what
 * differs between the dialects (row locks on PostgreSQL, batch statements) lives in the two
 * implementations, sqlite/delivery-queue.ts and postgres/delivery-queue.ts.
 */

export interface ClaimRequest {
  /** Time of the injected clock: rows with `next_attempt_at <= now` are due. */
  now: number;
  /** Wall time: a lease that ran out before it belongs to nobody any more. */
  leaseNow: number;
  /** Wall time until which the claimed rows are held. */
  leaseUntil: number;
  /** Token of this claim; only its holder may complete or release the rows. */
  leaseId: number;
  /** Instance number of the claiming process. */
  instanceId: number;
  limit: number;
  /** At most this many rows of one channel per claim, so one backlog cannot fill a claim. */
  perChannel: number;
  /**
   * At most this many rows of one account per claim when the rows looked at belong to more than
   * one account (an account alone in them may have them all).
   */
  perAccount: number;
  /** How many of the earliest due rows the claim picks from (and on PostgreSQL locks meanwhile). */
  scanLimit: number;
  /** Channels whose receivers are busy enough already; their rows are left for later. */
  excludeChannels: readonly number[];
  /** Accounts that hold their share of the worker already; their rows are left for later. */
  excludeAccounts: readonly number[];
}

/** A claimed delivery with what sending it needs from its event. */
export interface ClaimedDelivery {
  id: number;
  eventId: number;
  accountId: number;
  channelId: number;
  webhookId: number;
  /** Tries made so far in the current cycle (a redelivery starts a new cycle). */
  attempts: number;
  eventType: string;
  /** The exact bytes that are signed and sent. */
  body: string;
  /** The event's correlation id (lib/correlation.ts); null for events written without one. */
  correlationId: string | null;
}

export interface AttemptRecord {
  id: number;
  attemptedAt: number;
  url: string;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dropped';

/** What became of one claimed delivery; written back in batches. */
export interface DeliveryOutcome {
  id: number;
  leaseId: number;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
  updatedAt: number;
  /** The try that was made, if one was (a delivery dropped before sending has none). */
  attempt: AttemptRecord | null;
}

export interface DeliveryQueue {
  /** Takes up to `limit` due rows that nobody holds, and leases them to the caller. */
  claim(request: ClaimRequest): Promise<ClaimedDelivery[]>;
  /**
   * Records the tries and moves the rows on, in one transaction. A row whose lease passed to
   * another claim (or was cleared by a redelivery) keeps its new state; its try is still logged.
   */
  complete(outcomes: readonly DeliveryOutcome[]): Promise<void>;
  /** Gives rows back unsent, due as they were. */
  release(ids: readonly number[], leaseId: number): Promise<void>;
  /**
   * Frees leases whose process is gone. `ownInstance` (given once, when a worker starts): the
   * caller now holds that instance number, so the leases taken under it before belong to a
   * process that ended. On PostgreSQL also the leases of instance numbers nobody holds.
   * Returns how many rows were freed.
   */
  releaseOrphans(ownInstance: number | null): Promise<number>;
  /**
   * Tells the workers of other processes that deliveries became due (an API-only process after
   * a commit). PostgreSQL: NOTIFY, at most once per event-loop turn. SQLite: nothing to tell.
   */
  announce(): void;
  /** Calls `listener` when another process announced due deliveries; returns how to stop. */
  subscribe(listener: () => void): () => Promise<void>;
}
