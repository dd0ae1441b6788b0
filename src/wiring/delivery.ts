import type { Base } from './base.js';
import type { Metrics } from '../operations/metrics.js';
import { DeliveryWorker } from '../delivery/worker.js';
import { WebhookSender } from '../delivery/http-sender.js';
import { webhookTargetLoader } from '../domain/webhooks/targets.js';
import { WebhookDeliveryService } from '../domain/webhooks/service.js';
import type { RunningQueues } from './running-queues.js';

/**
 * Webhooks on the API side: the attempt log and redelivery. Without a worker of its own (role
 * `api`), a process tells the other processes' workers about new events (`webhooksDue`).
 */
export function wireWebhooks({ config, store, clock, outbox, signals }: Base): WebhookDeliveryService {
  if (config.role === 'api') signals.on('webhooksDue', () => store.deliveryQueue.announce());
  return new WebhookDeliveryService({ store, clock, wake: () => outbox.wake() });
}

/** Starts the webhook worker, woken by the `webhooksDue` signal; answers its stop. */
export function startWebhookWorker(base: Base, metrics: Metrics, running: RunningQueues): () => Promise<void> {
  const { config, store, ids, clock, box, logger, signals } = base;
  const hook = config.webhook;
  const worker = new DeliveryWorker({
    queue: store.deliveryQueue,
    loadTargets: webhookTargetLoader(store, box),
    sender: new WebhookSender({ allowlist: hook.allowlist, timeoutMs: hook.timeoutMs }),
    clock,
    instanceId: () => store.instanceId,
    nextId: () => ids.nextNumber(),
    retryScheduleSeconds: hook.retryScheduleSeconds,
    retryJitter: hook.retryJitter,
    timeoutMs: hook.timeoutMs,
    concurrency: hook.concurrency,
    endpointConcurrency: hook.endpointConcurrency,
    accountConcurrency: hook.accountConcurrency,
    pollMs: config.workerPollMs,
    logger: logger.child({ worker: 'webhooks' }),
    onOutcome: (outcome, latencyMs) => metrics.webhook(outcome, latencyMs),
  });
  running.webhooks = worker;
  const stopWaking = signals.on('webhooksDue', function wakeWebhookWorker() {
    worker.wake();
  });
  worker.start();
  return async () => {
    stopWaking();
    await worker.stop();
  };
}
