import type { Store } from '../store/store.js';

/** How long readiness waits for the store: a store that hangs is as unready as one that refuses. */
const STORE_CHECK_MS = 2_000;

export interface ReadinessReport {
  ready: boolean;
  /** Why not, one sentence per failed check (empty when ready). */
  problems: string[];
}

/**
 * Whether this process should be sent work: it is not shutting down, its store answers, the
 * store's schema has every migration of this build, and each queue of its role is being worked.
 * Liveness asks none of this (a process waiting for its store is alive, not to be restarted).
 */
export class Readiness {
  private stopping = false;
  private readonly queues = new Map<string, () => boolean>();

  constructor(private readonly store: Pick<Store, 'ping' | 'pendingMigrations'>) {}

  /** From now on the process is not ready (the load balancer stops sending before it closes). */
  beginShutdown(): void {
    this.stopping = true;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** A queue this role works: ready only while `running` says it is being worked. */
  worksQueue(name: string, running: () => boolean): void {
    this.queues.set(name, running);
  }

  async check(): Promise<ReadinessReport> {
    const problems: string[] = [];
    if (this.stopping) problems.push('The process is shutting down.');
    for (const [name, running] of this.queues) if (!running()) problems.push(`The ${name} queue is not being worked.`);
    try {
      await withDeadline(this.store.ping(), STORE_CHECK_MS);
      // Asked every time: a database restored from an older backup lacks migrations again.
      const pending = await withDeadline(this.store.pendingMigrations(), STORE_CHECK_MS);
      if (pending.length > 0) problems.push(`The store's schema lacks ${pending.length} migration(s): run \`parley migrate\`.`);
    } catch {
      problems.push('The store is not reachable.');
    }
    return { ready: problems.length === 0, problems };
  }
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
