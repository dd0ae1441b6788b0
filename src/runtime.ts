import type { FastifyInstance } from 'fastify';
import { loadSettings, type Config } from './config.js';
import { createLogger, plainLogger, type Logger } from './lib/logger.js';
import { systemClock, type Clock } from './lib/clock.js';
import { IdGenerator } from './lib/ids.js';
import { SecretBox } from './lib/crypto.js';
import { openStore } from './store/open.js';
import type { Store } from './store/store.js';
import { AccountService } from './domain/accounts/service.js';
import { ChannelService } from './domain/channels/service.js';
import { ConcurrencyGate, RateLimiter } from './domain/limits/rate-limiter.js';
import { SessionLimits } from './domain/limits/session-limits.js';
import { ConnectorRegistry } from './connectors/connector.js';
import { CONNECTOR_SETTINGS, defaultConnectors } from './connectors/registry-defaults.js';
import { InboundService } from './domain/inbound/service.js';
import { ProfileLoader } from './domain/inbound/profiles.js';
import { inboundRoutes } from './api/routes/inbound.js';
import { buildApp } from './api/app.js';
import { routeGroup, type RoutePlugin } from './api/route-group.js';
import { healthRoutes } from './api/routes/health.js';
import { metricsRoutes } from './api/routes/metrics.js';
import { buildOperationsApp } from './api/operations-app.js';
import { Metrics } from './operations/metrics.js';
import { Readiness } from './operations/readiness.js';
import { PLATFORM_CALLS, type PlatformCallReport } from './connectors/http.js';
import { channelRoutes } from './api/routes/channels.js';
import { settingsRoutes } from './api/routes/settings.js';
import { messageRoutes } from './api/routes/messages.js';
import { contactRoutes } from './api/routes/contacts.js';
import { capabilityRoutes } from './api/routes/capabilities.js';
import type { Services } from './services.js';
import { Outbox } from './domain/events/outbox.js';
import { WebhookDeliveryService } from './domain/webhooks/service.js';
import { webhookTargetLoader } from './domain/webhooks/targets.js';
import { deliveryRoutes } from './api/routes/deliveries.js';
import { DeliveryWorker, type WorkerStats } from './delivery/worker.js';
import { QueueRunner, type RunnerStats } from './queue/runner.js';
import { JobKinds, JobsTask } from './queue/jobs-task.js';
import { sendJobKind } from './domain/sending/send-job.js';
import { deliveryDeadlineJob } from './domain/sending/delivery-deadline.js';
import { PlatformStateService } from './domain/platform-state/service.js';
import { platformStateJob } from './domain/platform-state/job.js';
import { TestersService } from './domain/platform-state/testers.js';
import { testerRoutes } from './api/routes/testers.js';
import { WebhookSender } from './delivery/http-sender.js';
import { SettingsService } from './domain/settings/service.js';
import { ChannelCache } from './domain/messages/channel-cache.js';
import { MessageService } from './domain/messages/service.js';
import { ContactService } from './domain/contacts/service.js';
import { createServiceChatConnector } from './connectors/service_chat/connector.js';
import { channelContextOf, type ChannelContext, type PlatformChannelState } from './connectors/connector.js';
import { rm } from 'node:fs/promises';
import { resolve as resolvePath, sep } from 'node:path';
import { LocalFileStore } from './files/file-store.js';
import { StoredFiles } from './files/stored-files.js';
import { ChatService } from './domain/webchat/service.js';
import { ChatPushRelay } from './domain/webchat/push.js';
import { NotificationService } from './domain/notifications/service.js';
import { ChatServer } from './chat/server.js';
import { ChatLimits } from './domain/webchat/limits.js';
import { UploadSweeper } from './files/upload-sweeper.js';
import { clientAddressOf } from './lib/client-address.js';
import { fileRoutes } from './api/routes/files.js';
import { widgetRoutes } from './api/routes/widget.js';
import { widgetPreviewRoutes } from './api/routes/widget-preview.js';
import { notificationRoutes } from './api/routes/notifications.js';
import { adminAppRoutes, defaultAdminAppDir } from './api/routes/admin-app.js';
import { adminRouteGroups } from './api/routes/admin/index.js';
import { trialDrivers } from './trial/index.js';
import { requestOrigin } from './api/admin-guard.js';
import { SessionService } from './domain/users/sessions.js';
import { SignInThrottle } from './domain/users/throttle.js';
import { PasswordWork } from './domain/users/hashing.js';
import { UserService } from './domain/users/service.js';
import { ReceivedTextClassifier } from './domain/nlp/classifier.js';
import { NlpIntegrationService } from './domain/nlp/service.js';
import { nlpTrainingJob } from './domain/nlp/training-job.js';
import type { NlpProcessStats } from './domain/nlp/stats.js';
import { nlpRoutes } from './api/routes/nlp.js';
import type { Content } from './schemas/content.js';
import type { NlpTrainingData } from './schemas/nlp.js';
import { BUILTIN_LANGUAGES } from './nlp/builtin/languages.js';
import { loadBuiltinEngine } from './nlp/builtin/classifier.js';
import { trainModel } from './nlp/builtin/trainer.js';
import { externalEngine } from './nlp/external/engine.js';
import { nlpDispatcher } from './nlp/external/dispatcher.js';
import { RetentionPurge, RetentionSweeper, type RetentionCounts } from './domain/retention/purge.js';
import { createSignals, type DomainSignals } from './domain/signals.js';

/**
 * Jobs running at once in one process (mostly platform calls of send jobs, each waiting on the
 * network), and how long a claim holds a job (longer than any attempt).
 */
const JOB_CONCURRENCY = 32;
const JOB_LEASE_MS = 5 * 60_000;

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
 * The composition root: config -> store -> services -> HTTP app and workers. The process entry
 * (main.ts) and the tests both build the service through here, so they run the same wiring.
 */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  // The one signal object: what the services tell this process's caches and workers after a commit.
  const signals = createSignals((err, name) => logger.warn({ err, signal: name }, 'a signal listener failed'));
  // The connectors' own variables are checked before anything opens (a bad one stops the start).
  const connectorSettings = loadSettings(config, CONNECTOR_SETTINGS);
  const store = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize, logger: logger.child({ component: 'store' }) });
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  // Ids are issued only under an instance number this process holds (store.idInstance throws otherwise).
  const ids = new IdGenerator(
    () => store.idInstance(),
    () => clock.now(),
  );
  // Operations: readiness and the metrics, read by /readyz and /metrics (docs/operations.md).
  const readiness = new Readiness(store);
  const metrics = new Metrics({
    now: () => clock.now(),
    queueDepths: () => store.queueDepths(clock.now()),
    pool: () => store.poolUse(),
    nlp: () => classifier.stats.totals,
    claims: () => {
      const out: { queue: string; claims: number; claimMs: number }[] = [];
      if (deliveryWorker) out.push({ queue: 'webhooks', ...deliveryWorker.stats });
      if (jobsRunner) out.push({ queue: 'jobs', ...jobsRunner.stats });
      if (trainingRunner) out.push({ queue: 'nlp_training', ...trainingRunner.stats });
      return out;
    },
  });
  const countPlatformCall = (message: unknown) => {
    const call = message as PlatformCallReport;
    metrics.platformCall(call.platform, call.status, call.ms);
  };
  PLATFORM_CALLS.subscribe(countPlatformCall);
  const box = SecretBox.fromBase64(config.encryptionKey);
  // States the connectors' calls reveal (a disconnected page), kept by the platform-state service below.
  const channelStates = { report: (channel: ChannelContext, state: PlatformChannelState) => signals.emit('channelStateReported', { channel, state }) };
  const connectors = options.connectors ?? defaultConnectors({ publicUrl: config.publicUrl, now: () => clock.now(), channelStates, ...connectorSettings });

  const accounts = new AccountService({ store, ids, clock, authCacheMs: config.authCacheMs });
  const removeFiles = async (keys: readonly string[]) => {
    for (const key of keys) {
      const path = resolvePath(config.filesDir, key);
      if (path.startsWith(config.filesDir + sep)) await rm(path, { force: true });
    }
  };
  const channels = new ChannelService({ store, ids, clock, box, connectors, webhookAllowlist: config.webhook.allowlist, removeFiles, signals });
  // service_chat's connector is the service itself: always there. It reaches the browsers through
  // the chat push relay, attached to the chat server once that exists.
  const chatPush = new ChatPushRelay();
  if (!connectors.has('service_chat')) connectors.register(createServiceChatConnector({ push: chatPush }));
  const outbox = new Outbox(ids, clock, signals);
  const channelCache = new ChannelCache(channels, config.channelCacheMs, () => clock.now(), signals);
  signals.on('channelChanged', ({ channelId }) => channelCache.forget(Number(channelId)));
  // Stored files: received attachments, profile pictures, web chat uploads ({base_url}/files/...).
  const storedFiles = new StoredFiles({ store, files: new LocalFileStore(config.filesDir), clock, baseUrl: config.publicUrl });
  // Contacts learn their platform profile on the first Get Contact; inbound events may change a
  // contact's addressing, so the send path's contact cache forgets it.
  const profiles = new ProfileLoader({
    store,
    clock,
    connectors,
    files: storedFiles,
    signals,
    logger: logger.child({ component: 'profiles' }),
  });
  const contacts = new ContactService({ store, ids, clock, channels: channelCache, cacheMs: config.channelCacheMs, removeFiles, profiles });
  signals.on('contactChanged', ({ contactId }) => contacts.cache.forgetContact(contactId));
  signals.on('channelForgotten', ({ channelId }) => contacts.cache.forgetChannel(channelId));
  const messages = new MessageService({
    store,
    ids,
    clock,
    outbox,
    connectors,
    channels: channelCache,
    contacts,
    defaultPhoneRegion: config.defaultPhoneRegion,
    sharedModeMessageLimit: config.sharedModeMessageLimit,
    signals,
  });
  // Committed jobs wake (PostgreSQL) the other processes' runners; this process's wake once started.
  signals.on('jobsDue', () => store.jobQueue.announce());
  // The administration app's users: sessions, the sign-in throttle, setup links at {origin}/admin/setup.
  const adminOrigin = new URL(config.publicUrl).origin;
  const sessions = new SessionService({ store, clock });
  const passwordWork = new PasswordWork();
  const users = new UserService({
    store,
    ids,
    clock,
    sessions,
    throttle: new SignInThrottle({ store, clock, ids }),
    hashing: passwordWork,
    passwordCost: config.admin.passwordCost,
    setupUrl: `${adminOrigin}/admin/setup`,
  });
  const services: Services = {
    store,
    accounts,
    channels,
    rateLimiter: new RateLimiter(store.rateCounter, clock, config.rateLimitWindowSeconds),
    gate: new ConcurrencyGate(),
    outbox,
    messages,
    contacts,
    settings: new SettingsService({ store, clock, box, connectors, signals }),
    sessions,
    users,
    passwordWork,
  };
  const origin = requestOrigin(config.admin.trustedProxies);

  // Webhooks: the attempt log and redelivery in the API; the webhook worker in startWorkers().
  const webhooks = new WebhookDeliveryService({ store, clock, wake: () => services.outbox.wake() });
  // Without a worker of its own, a process tells the others' workers about new events.
  if (config.role === 'api') signals.on('webhooksDue', () => store.deliveryQueue.announce());

  // NLP on received text: each channel's integration (built-in, trained by a job; or an external
  // NLU server behind the address guard), asked by the inbound and web chat paths within its budget.
  const nlpCalls = nlpDispatcher({ allowlist: config.nlp.allowlist });
  const classifier = new ReceivedTextClassifier({
    store,
    box,
    engines: { builtin: loadBuiltinEngine, external: (o) => externalEngine({ ...o, dispatcher: nlpCalls }) },
    now: () => Date.now(),
    cacheMs: config.channelCacheMs,
    defaultBudgetMs: config.nlp.timeBudgetMs,
    statsFlushMs: 5_000,
    logger: logger.child({ component: 'nlp' }),
  });
  signals.on('channelForgotten', ({ channelId }) => classifier.forget(channelId));
  signals.on('nlpModelChanged', ({ channelId }) => classifier.forget(channelId));
  const classify = (channelId: number, content: Content) => classifier.classify(channelId, content);
  const nlp = new NlpIntegrationService({
    store,
    ids,
    clock,
    box,
    channel: (accountId, channelId) => channelCache.get(accountId, channelId),
    classifier,
    supportedLanguages: BUILTIN_LANGUAGES,
    signals,
  });

  // Platform callbacks (socialnet_chat, botmsg, ...): /v1/inbound/..., signed by each platform.
  const inbound = new InboundService({
    store,
    ids,
    clock,
    box,
    outbox,
    connectors,
    files: storedFiles,
    defaultPhoneRegion: config.defaultPhoneRegion,
    publicUrl: config.publicUrl,
    signals,
    classify,
    logger: logger.child({ component: 'inbound' }),
    onVerdict: (type, verdict) => metrics.inbound(type, verdict),
  });

  // Web chat (service_chat): the chat rules, stored files, notifications; a connector whose
  // platform is the service itself delivers what was sent once it committed.
  const chatLimits = new ChatLimits(config.chatLimits, clock);
  const chat = new ChatService({ store, ids, clock, box, outbox, files: storedFiles, maxUploadBytes: config.chatMaxUploadBytes, limits: chatLimits, classify });
  const uploadSweeper = new UploadSweeper({ files: storedFiles, clock, intervalMs: config.chatUploadSweepMs, logger: logger.child({ worker: 'uploads' }) });
  // Retention: rows past their age deleted in small batches by one worker process at a time.
  const retention = new RetentionPurge({ store, files: storedFiles, clock, settings: config.retention, logger: logger.child({ worker: 'retention' }) });
  const retentionSweeper = new RetentionSweeper({ purge: retention, intervalMs: config.retention.intervalMs, logger: logger.child({ worker: 'retention' }) });
  const notifications = new NotificationService({ store, clock, box, connectors });
  signals.on('messageStored', ({ channel }) => metrics.messageAccepted(channel.type, channel.mode));
  signals.on('messageStored', ({ channel, contactId, message }) => {
    connectors.role(channel.type, 'localDelivery')?.deliverMessage(channelContextOf(channel), contactId, message);
  });

  // Channel states the platform moves (the rbm agent) and the testers of such channels.
  const platformState = new PlatformStateService({
    store,
    clock,
    ids,
    box,
    outbox,
    connectors,
    logger: logger.child({ component: 'platform-state' }),
    signals,
  });
  signals.on('channelSaved', ({ channel, previous }) => {
    platformState.saved(channel, previous).catch((err: unknown) => logger.warn({ err, channel: channel.id }, 'the platform-state check could not be queued'));
  });
  signals.on('channelStateReported', ({ channel, state }) => {
    platformState.observed(channel.id, state).catch((err: unknown) => logger.warn({ err, channel: channel.id }, 'a reported channel state could not be kept'));
  });
  const testers = new TestersService({ store, clock, box, connectors, defaultPhoneRegion: config.defaultPhoneRegion, signals });

  // Every route group, with what it needs, in the scope of its callers (api/scopes.ts).
  const baseUrl = config.publicUrl;
  // /metrics and the health checks move to a listener of their own when it has an address.
  const operationRoutes = [
    routeGroup(healthRoutes, { readiness, dialect: store.dialect }),
    routeGroup(metricsRoutes, { metrics, token: config.operations.token }),
  ];
  const separateOperations = config.operations.port !== null;
  const app = await buildApp({
    logger,
    requestMetrics: metrics,
    baseUrl,
    bodyLimitBytes: config.bodyLimitBytes,
    tls: config.tls,
    guard: services,
    admin: {
      sessions: services.sessions,
      rateLimiter: services.rateLimiter,
      sessionLimits: new SessionLimits(clock),
      trustedProxies: config.admin.trustedProxies,
      publicOrigin: adminOrigin,
    },
    routes: {
      public: [
        ...(separateOperations ? [routeGroup(healthRoutes, { readiness, dialect: store.dialect })] : operationRoutes),
        routeGroup(fileRoutes, { files: storedFiles }),
        routeGroup(widgetRoutes, {}),
        routeGroup(widgetPreviewRoutes, {}),
        routeGroup(inboundRoutes, { inbound }),
        routeGroup(adminAppRoutes, { dir: options.adminAppDir ?? defaultAdminAppDir() }),
      ],
      token: [
        routeGroup(channelRoutes, { channels, baseUrl, platformState, sharedUsage: (channel) => messages.sharedUsage(channel) }),
        routeGroup(testerRoutes, { testers }),
        routeGroup(nlpRoutes, { nlp, baseUrl }),
        routeGroup(settingsRoutes, { settings: services.settings }),
        routeGroup(messageRoutes, { messages, baseUrl }),
        routeGroup(contactRoutes, { contacts }),
        routeGroup(capabilityRoutes, { messages }),
        routeGroup(deliveryRoutes, { webhooks }),
        routeGroup(notificationRoutes, { notifications }),
        ...(options.extraRoutes ?? []).map((plugin) => routeGroup(plugin, {})),
      ],
      admin: adminRouteGroups({
        users: services.users,
        sessions: services.sessions,
        accounts,
        channels,
        webhooks,
        rateLimiter: services.rateLimiter,
        store,
        clock,
        origin,
        sandboxUrl: config.sandboxUrl ?? null,
        outbox: services.outbox,
        baseUrl,
        nlp,
        // The stand-ins answer at the platform URLs the connectors use (the sandbox's by default).
        trialDrivers: trialDrivers(
          { socialnet_chat: connectorSettings.socialnet_chat.apiUrl, botmsg: connectorSettings.botmsg.apiUrl, mobile: connectorSettings.smsprovider.apiUrl },
          connectorSettings.platforms.timeoutMs,
        ),
      }),
    },
  });
  const stoppers: Array<() => Promise<void>> = [];
  // The socket.io chat server shares the API's HTTP server (a worker-only process serves no browsers).
  const chatServer =
    config.role === 'worker'
      ? null
      : new ChatServer(app.server, {
          chat,
          logger: logger.child({ component: 'chat' }),
          openClusterBus: (onError) => store.openClusterBus(onError),
          maxUploadBytes: config.chatMaxUploadBytes,
          limits: chatLimits,
          clientAddress: clientAddressOf(config.chatTrustedProxies),
          onSessionCount: (change) => (change > 0 ? metrics.chatConnected() : metrics.chatDisconnected()),
        });
  const operationsApp = separateOperations ? await buildOperationsApp({ logger: logger.child({ component: 'operations' }), routes: operationRoutes }) : null;
  chatPush.attach(chatServer);
  let deliveryWorker: DeliveryWorker | null = null;
  // The job kinds this process runs: the send jobs of the asynchronous types.
  const jobKinds = new JobKinds();
  jobKinds.register(
    sendJobKind({
      store,
      clock,
      outbox,
      connectors,
      channels: channelCache,
      logger: plainLogger(logger.child({ worker: 'send' })),
      onOutcome: (type, outcome, latencyMs, retryAfterMs) => metrics.sendJob(type, outcome, latencyMs, retryAfterMs),
    }),
  );
  jobKinds.register(platformStateJob(platformState));
  jobKinds.register(deliveryDeadlineJob({ store, outbox, channels: channelCache }));
  // Trainings run apart from the send jobs: their own few slots, one account's one at a time, so
  // a long training never holds a send's room.
  const trainingKinds = new JobKinds();
  trainingKinds.register(
    nlpTrainingJob({
      store,
      clock,
      train: options.trainNlpModel ?? ((data) => trainModel(data, { timeoutMs: config.nlp.trainingTimeoutMs, memoryMb: config.nlp.trainingMemoryMb })),
      signals,
      logger: logger.child({ worker: 'nlp-training' }),
    }),
  );
  let jobsStarted = false;
  let jobsRunner: QueueRunner<unknown, unknown, unknown> | null = null;
  let trainingRunner: QueueRunner<unknown, unknown, unknown> | null = null;
  // The queues of this role: not ready while they are not worked. A worker process exists for them
  // alone, so it expects them from the start; an `all` process from startWorkers() on (`parley
  // serve` calls it before listening; embedded without workers, it serves the API only).
  const expectQueues = () => {
    readiness.worksQueue('webhooks', () => deliveryWorker?.active ?? false);
    readiness.worksQueue('jobs', () => jobsRunner?.active ?? false);
    readiness.worksQueue('nlp_training', () => trainingRunner?.active ?? false);
  };
  if (config.role === 'worker') expectQueues();
  const stopSweeper = () => uploadSweeper.stop();
  const stopRetention = () => retentionSweeper.stop();

  return {
    config,
    logger,
    clock,
    store,
    services,
    signals,
    ids,
    app,
    operationsApp,
    metrics,
    readiness,
    beginShutdown: () => readiness.beginShutdown(),
    chat: chatServer,
    webhookStats: () => (deliveryWorker ? { ...deliveryWorker.stats } : null),
    jobStats: () => (jobsRunner ? { ...jobsRunner.stats } : null),
    nlpStats: () => ({ ...classifier.stats.totals }),
    sweepUploads: () => uploadSweeper.sweep(),
    purgeRetention: (signal) => retention.purge(signal),
    startWorkers() {
      if (config.role !== 'api') expectQueues();
      if (config.role !== 'api' && !deliveryWorker) {
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
        deliveryWorker = worker;
        const unsubscribe = signals.on('webhooksDue', () => worker.wake());
        worker.start();
        stoppers.push(async () => {
          unsubscribe();
          await worker.stop();
        });
      }
      if (config.role !== 'api' && !stoppers.includes(stopSweeper)) {
        uploadSweeper.start();
        stoppers.push(stopSweeper);
      }
      if (config.role !== 'api' && !stoppers.includes(stopRetention)) {
        retentionSweeper.start();
        stoppers.push(stopRetention);
      }
      // Jobs (send jobs and other background work) run once a job kind registers in `jobKinds`.
      if (config.role !== 'api' && jobKinds.size > 0 && !jobsStarted) {
        const task = new JobsTask({
          queue: store.jobQueue,
          kinds: jobKinds,
          clock,
          wallClock: systemClock,
          concurrency: JOB_CONCURRENCY,
          leaseMs: JOB_LEASE_MS,
          logger: logger.child({ worker: 'jobs' }),
        });
        const runner = new QueueRunner(task, {
          instanceId: () => store.instanceId,
          nextId: () => ids.nextNumber(),
          pollMs: config.workerPollMs,
          logger: logger.child({ worker: 'jobs' }),
        });
        const trainings = new JobsTask({
          queue: store.jobQueue,
          kinds: trainingKinds,
          clock,
          wallClock: systemClock,
          concurrency: config.nlp.trainingConcurrency,
          // Claimed only when they can start: a training held here waits for no one else's.
          capacity: config.nlp.trainingConcurrency,
          leaseMs: Math.max(JOB_LEASE_MS, config.nlp.trainingTimeoutMs + JOB_LEASE_MS),
          logger: logger.child({ worker: 'nlp-training' }),
          perAccount: true,
          freesOwnLeases: false,
        });
        const training = new QueueRunner(trainings, {
          instanceId: store.instanceId,
          nextId: () => ids.nextNumber(),
          pollMs: config.workerPollMs,
          logger: logger.child({ worker: 'nlp-training' }),
        });
        jobsStarted = true;
        jobsRunner = runner as QueueRunner<unknown, unknown, unknown>;
        trainingRunner = training as QueueRunner<unknown, unknown, unknown>;
        const unsubscribe = signals.on('jobsDue', () => {
          runner.wake();
          training.wake();
        });
        runner.start();
        training.start();

        stoppers.push(
          () => runner.stop(),
          () => training.stop(),
          async () => unsubscribe(),
        );
      }
    },
    async close() {
      readiness.beginShutdown();
      await chatServer?.close();
      await app.close();
      PLATFORM_CALLS.unsubscribe(countPlatformCall);
      for (const stop of stoppers.reverse()) await stop();
      // Last of the listeners: a worker answers 503 on /readyz while its queues drain.
      await operationsApp?.close();
      await classifier.flushStats();
      await nlpCalls.close();
      await store.close();
    },
  };
}
