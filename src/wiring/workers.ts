import type { Base } from './base.js';
import type { JobKinds } from '../queue/jobs-task.js';
import type { Metrics } from '../operations/metrics.js';
import { startWebhookWorker } from './delivery.js';
import { startJobRunners } from './jobs.js';
import type { OperationsWiring } from './operations.js';
import type { RunningQueues } from './running-queues.js';
import type { Sweepers } from './sweepers.js';

export interface Workers {
  /** Starts the background workers of the configured role, once. */
  start(): void;
  /** Stops what start() started, the last started first. */
  stop(): Promise<void>;
}

/**
 * The background work of a `worker` or `all` process: the webhook worker, the upload and retention
 * sweepers, the jobs and training runners. Committed jobs are also announced to the other
 * processes (PostgreSQL) whatever the role.
 */
export function wireWorkers(
  base: Base,
  deps: { running: RunningQueues; operations: OperationsWiring; metrics: Metrics; sweepers: Sweepers; kinds: { jobs: JobKinds; training: JobKinds } },
): Workers {
  const { config, store, signals } = base;
  const { running, operations, sweepers } = deps;
  signals.on('jobsDue', () => store.jobQueue.announce());
  // A worker process exists for its queues alone: not ready until they are worked. An `all`
  // process expects them from start() on (`parley serve` calls it before listening).
  if (config.role === 'worker') operations.expectQueues();
  const stoppers: Array<() => Promise<void>> = [];
  return {
    start() {
      if (config.role === 'api') return;
      operations.expectQueues();
      if (stoppers.length > 0) return;
      stoppers.push(startWebhookWorker(base, deps.metrics, running));
      sweepers.uploads.start();
      stoppers.push(() => sweepers.uploads.stop());
      sweepers.retentionSweeper.start();
      stoppers.push(() => sweepers.retentionSweeper.stop());
      stoppers.push(startJobRunners(base, deps.kinds, running));
    },
    async stop() {
      for (const stop of stoppers.splice(0).reverse()) await stop();
    },
  };
}
