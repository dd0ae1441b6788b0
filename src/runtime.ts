import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { Logger } from './lib/logger.js';
import type { Clock } from './lib/clock.js';
import type { IdGenerator } from './lib/ids.js';
import type { Store } from './store/store.js';
import type { ConnectorRegistry } from './connectors/connector.js';
import type { RoutePlugin } from './api/route-group.js';
import type { Metrics } from './operations/metrics.js';
import type { Readiness } from './operations/readiness.js';
import type { Services } from './services.js';
import type { WorkerStats } from './delivery/worker.js';
import type { RunnerStats } from './queue/runner.js';
import type { ChatServer } from './chat/server.js';
import type { NlpTrainingData } from './schemas/nlp.js';
import type { NlpProcessStats } from './domain/nlp/stats.js';
import type { RetentionCounts } from './domain/retention/purge.js';
import type { DomainSignals } from './domain/signals.js';
import { openBase } from './wiring/base.js';
import { wireFiles } from './wiring/files.js';
import { connectorSettingsOf, wireConnectors } from './wiring/connectors.js';
import { wireClassifier, trainingJobKinds } from './wiring/nlp.js';
import { RunningQueues } from './wiring/running-queues.js';
import { wireOperations } from './wiring/operations.js';
import { wireChannels } from './wiring/channels.js';
import { wireServices } from './wiring/services.js';
import { wireChat, startChatServer } from './wiring/chat.js';
import { wireSweepers } from './wiring/sweepers.js';
import { jobKindsOf } from './wiring/jobs.js';
import { wireWorkers } from './wiring/workers.js';
import { wireHttp } from './wiring/http.js';

export interface RuntimeOptions {
  clock?: Clock;
  logger?: Logger;
  /** Replaces the platform connectors (tests). */
  connectors?: ConnectorRegistry;
  /** Extra routes mounted in the token scope (tests use it to reach failure paths). */
  extraRoutes?: RoutePlugin[];
  /** Where the built administration app is (default dist/web/admin; tests give their own). */
  adminAppDir?: string;
  /** Replaces the built-in NLP engine's training (tests hold it back to see the model in use serve meanwhile). */
  trainNlpModel?: (data: NlpTrainingData) => Promise<string>;
}

export interface Runtime {
  config: Config;
  logger: Logger;
  clock: Clock;
  store: Store;
  services: Services;
  /** The process's one signal object (domain/signals.ts): tests listen to it or signal a change. */
  signals: DomainSignals;
  ids: IdGenerator;
  app: FastifyInstance;
  /**
   * The operations listener's app (/healthz, /readyz, /metrics) when it has an address of its own
   * (METRICS_PORT; always for a worker), else null and those routes are on `app`. Not listening yet.
   */
  operationsApp: FastifyInstance | null;
  /** This process's metrics (the registry /metrics serves). */
  metrics: Metrics;
  /** What /readyz answers. */
  readiness: Readiness;
  /** Not ready from now on (close() begins with it). */
  beginShutdown(): void;
  /** The web chat server (null in a worker-only process). */
  chat: ChatServer | null;
  /** Starts background workers for the configured role. */
  startWorkers(): void;
  /** Removes the web chat uploads no message named in time (the workers also do it periodically). */
  sweepUploads(): Promise<number>;
  /** One retention pass now (the workers also run one every RETENTION_INTERVAL_SECONDS); null when another pass holds it. */
  purgeRetention(signal?: AbortSignal): Promise<RetentionCounts | null>;
  /** Counters of this process's webhook worker (null before startWorkers, or without one). */
  webhookStats(): WorkerStats | null;
  /** Counters of this process's jobs runner (null before startWorkers, or without one). */
  jobStats(): RunnerStats | null;
  /** This process's NLP outcomes on received messages. */
  nlpStats(): NlpProcessStats;
  close(): Promise<void>;
}

/**
 * The composition root: config -> signals and store -> connectors -> services -> HTTP app, chat
 * server and workers. Each step is a wiring function of src/wiring/ named for what it wires; the
 * process entry (main.ts), the CLI's account commands (wiring/accounts.ts) and the tests build
 * the service through them, so they run the same wiring.
 */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const connectorSettings = connectorSettingsOf(config);
  const base = await openBase(config, options);
  const { store, signals } = base;
  const { storedFiles, removeFiles } = wireFiles(config, store, base.clock);
  const { connectors, chatPush } = wireConnectors({ ...base, settings: connectorSettings }, options.connectors);
  const nlp = wireClassifier(base);
  const running = new RunningQueues();
  const operations = wireOperations({ ...base, classifier: nlp.classifier, running });
  const { metrics, readiness } = operations;
  const channels = wireChannels(base, connectors, removeFiles);
  const services = wireServices(base, { connectors, channels, classifier: nlp, storedFiles, removeFiles, metrics });
  const chat = wireChat(base, storedFiles, nlp.classify);
  const sweepers = wireSweepers(base, storedFiles);
  const jobs = jobKindsOf(base, {
    connectors,
    channelCache: channels.channelCache,
    platformState: services.platformState,
    contacts: services.contacts,
    metrics,
  });
  const workers = wireWorkers(base, { running, operations, metrics, sweepers, kinds: { jobs, training: trainingJobKinds(base, options.trainNlpModel) } });
  const { app, operationsApp } = await wireHttp(base, { services, operations, storedFiles, connectorSettings, options });
  const chatServer = startChatServer(base, { app, chat, chatPush, metrics });

  return {
    config,
    logger: base.logger,
    clock: base.clock,
    store,
    services,
    signals,
    ids: base.ids,
    app,
    operationsApp,
    metrics,
    readiness,
    beginShutdown: () => readiness.beginShutdown(),
    chat: chatServer,
    webhookStats: () => (running.webhooks ? { ...running.webhooks.stats } : null),
    jobStats: () => (running.jobs ? { ...running.jobs.stats } : null),
    nlpStats: () => ({ ...nlp.classifier.stats.totals }),
    sweepUploads: () => sweepers.uploads.sweep(),
    purgeRetention: (signal) => sweepers.retention.purge(signal),
    startWorkers: () => workers.start(),
    async close() {
      readiness.beginShutdown();
      await chatServer?.close();
      await closeHttp(app);
      operations.stop();
      await workers.stop();
      // Last of the listeners: a worker answers 503 on /readyz while its queues drain.
      if (operationsApp) await closeHttp(operationsApp);
      await nlp.classifier.flushStats();
      await nlp.calls.close();
      await store.close();
    },
  };
}

/** How long closing waits for requests still open before it ends their connections. */
export const CLOSE_GRACE_MS = 3_000;

/**
 * Closes an HTTP app: it stops listening, ends idle connections and waits for the requests in
 * flight. A request that never ends (a chat long-poll caught between the chat server's close and
 * this one, a client that stopped sending its body) would hold the close for ever, so after
 * CLOSE_GRACE_MS the connections still open are ended.
 */
async function closeHttp(app: FastifyInstance): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
