/**
 * What a kind of queued work gives the runner (runner.ts). The runner owns the loop, leases,
 * wake-ups, orphan sweeps, group commit of outcomes and graceful stop; a task kind owns where its
 * work is stored (its source), which claimed item may start when (its admission) and what running
 * one means (`run`). Webhook deliveries (delivery/) and jobs (jobs-task.ts) are task kinds.
 */

/** A claim's lease. Leases are about processes that die, so its times are wall-clock times. */
export interface Lease {
  /** Token of the claim: only its holder may complete or release what it took. */
  readonly id: number;
  /** Instance number of the claiming process (orphan sweeps find its leases by it). */
  readonly instanceId: number;
  /** Wall time of the claim: a lease that ran out before it belongs to nobody. */
  readonly now: number;
  /** Wall time until which the claimed items are held. */
  readonly until: number;
}

/** Where a task kind's work is stored, as the runner uses it. */
export interface TaskSource<Held, Outcome> {
  /** Takes up to `limit` due items nobody holds, under `lease`. */
  claim(lease: Lease, limit: number, context: TaskContext<Outcome>): Promise<Held[]>;
  /** Writes outcomes back, all in one transaction (group commit). */
  complete(outcomes: readonly Outcome[]): Promise<void>;
  /** Gives items back unrun, due as they were. */
  release(items: readonly Held[]): Promise<void>;
  /**
   * Frees the leases of processes that ended: with `ownInstance` (once, at start) also those
   * taken under this process's instance number before it started. Returns how many were freed.
   */
  releaseOrphans(ownInstance: number | null): Promise<number>;
  /** Calls `listener` when another process announced due work; returns how to stop listening. */
  subscribe(listener: () => void): () => Promise<void>;
  /**
   * Whether the last claim left out items held back by limits (receivers or accounts at theirs):
   * such a claim reads through what it leaves, so finding nothing cost it the most.
   */
  leftOutLimited?(): boolean;
}

/**
 * Which claimed items may start, and when. `Held` is what a claim brings; `Running` is the token
 * of a started item handed back to `finish` (the same type when nothing more is needed).
 */
export interface Admission<Held, Running> {
  /** How many more items a claim may bring now. */
  room(): number;
  /** Whether a claim is worth it without a wake-up: work is known to be left, or `ended` freed room for it. */
  wantsClaim(ended?: Running): boolean;
  /** Keeps a claimed item until it may start; false when there is no place for it (it is released). */
  hold(item: Held): boolean;
  /** The next item that may start now, or null. */
  next(): Running | null;
  /** A started item ended. */
  finish(item: Running): void;
  /** Removes and returns every item not started yet (stop). */
  drainWaiting(): Held[];
  /**
   * For admissions that hold items back for a while (a rate): `listener` is called when held
   * items may start although none ended (the runner then starts them, and claims when asked).
   */
  onReady?(listener: () => void): void;
  /** Items started and not ended. */
  readonly active: number;
  /** Items held, started or waiting. */
  readonly held: number;
}

/** What a running item may use of the runner. */
export interface TaskContext<Outcome> {
  /** Queues an outcome for the next group commit (one transaction for all that ended meanwhile). */
  record(outcome: Outcome): void;
  /** Aborted when stop's grace period is over: running items should end soon after. */
  readonly signal: AbortSignal;
}

export interface TaskKind<Held, Running, Outcome> {
  /** Names the kind in logs. */
  readonly name: string;
  readonly source: TaskSource<Held, Outcome>;
  readonly admission: Admission<Held, Running>;
  /** How long a claim holds its items (wall time): longer than an item may wait and run. */
  readonly leaseMs: number;
  /** Runs one started item; reports its outcome through `context.record`. */
  run(item: Running, context: TaskContext<Outcome>): Promise<void>;
  /** After the grace period of stop: cut off what is still running. */
  abort?(): void;
}
