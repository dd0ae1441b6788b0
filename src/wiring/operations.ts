import type { Clock } from '../lib/clock.js';
import type { Store } from '../store/store.js';
import { Metrics } from '../operations/metrics.js';
import { Readiness } from '../operations/readiness.js';
import { PLATFORM_CALLS, type PlatformCallReport } from '../connectors/http.js';
import type { ReceivedTextClassifier } from '../domain/nlp/classifier.js';
import type { RunningQueues } from './running-queues.js';

export interface OperationsWiring {
  /** This process's metrics (the registry /metrics serves). */
  metrics: Metrics;
  /** What /readyz answers. */
  readiness: Readiness;
  /** The queues of this process's role: not ready while they are not worked. */
  expectQueues(): void;
  /** Stops counting platform calls (close). */
  stop(): void;
}

/** Readiness and the metrics, read by /readyz and /metrics (docs/operations.md); platform calls counted from connectors/http.ts. */
export function wireOperations(deps: { store: Store; clock: Clock; classifier: ReceivedTextClassifier; running: RunningQueues }): OperationsWiring {
  const { store, clock, classifier, running } = deps;
  const readiness = new Readiness(store);
  const metrics = new Metrics({
    now: () => clock.now(),
    queueDepths: () => store.queueDepths(clock.now()),
    pool: () => store.poolUse(),
    nlp: () => classifier.stats.totals,
    claims: () => running.claims(),
  });
  const countPlatformCall = (message: unknown) => {
    const call = message as PlatformCallReport;
    metrics.platformCall(call.platform, call.status, call.ms);
  };
  PLATFORM_CALLS.subscribe(countPlatformCall);
  return {
    metrics,
    readiness,
    expectQueues() {
      readiness.worksQueue('webhooks', () => running.webhooks?.active ?? false);
      readiness.worksQueue('jobs', () => running.jobs?.active ?? false);
      readiness.worksQueue('nlp_training', () => running.training?.active ?? false);
    },
    stop: () => PLATFORM_CALLS.unsubscribe(countPlatformCall),
  };
}
