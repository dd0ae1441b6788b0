import type { DeliveryWorker } from '../delivery/worker.js';
import type { QueueRunner } from '../queue/runner.js';

type AnyRunner = QueueRunner<unknown, unknown, unknown>;

/**
 * The queue workers this process runs, none until startWorkers() starts them: what /metrics
 * (claims), /readyz (worked or not) and the runtime's stats read.
 */
export class RunningQueues {
  webhooks: DeliveryWorker | null = null;
  jobs: AnyRunner | null = null;
  training: AnyRunner | null = null;

  /** Each started runner's claims so far and the time spent in their store queries. */
  claims(): { queue: string; claims: number; claimMs: number }[] {
    const out: { queue: string; claims: number; claimMs: number }[] = [];
    if (this.webhooks) out.push({ queue: 'webhooks', ...this.webhooks.stats });
    if (this.jobs) out.push({ queue: 'jobs', ...this.jobs.stats });
    if (this.training) out.push({ queue: 'nlp_training', ...this.training.stats });
    return out;
  }
}
