import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { createLogger, type Logger } from './lib/logger.js';
import { systemClock, type Clock } from './lib/clock.js';
import { IdGenerator } from './lib/ids.js';
import { SecretBox } from './lib/crypto.js';
import { openStore } from './store/open.js';
import type { Store } from './store/store.js';
import { AccountService } from './domain/accounts/service.js';
import { ChannelService } from './domain/channels/service.js';
import { ConcurrencyGate, RateLimiter } from './domain/limits/rate-limiter.js';
import { ConnectorRegistry } from './connectors/connector.js';
import { buildApp } from './api/app.js';
import type { Services } from './services.js';
import { Outbox } from './domain/events/outbox.js';

export interface RuntimeOptions {
  clock?: Clock;
  logger?: Logger;
  /** Replaces the platform connectors (tests). */
  connectors?: ConnectorRegistry;
  /** Extra routes mounted on the app (tests use it to reach failure paths). */
  extraRoutes?: Array<(app: FastifyInstance) => void>;
}

export interface Runtime {
  config: Config;
  logger: Logger;
  clock: Clock;
  store: Store;
  services: Services;
  ids: IdGenerator;
  app: FastifyInstance;
  /** Starts background workers for the configured role. */
  startWorkers(): void;
  close(): Promise<void>;
}

/**
 * The composition root: config -> store -> services -> HTTP app and workers. The process entry
 * (main.ts) and the tests both build the service through here, so they run the same wiring.
 */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const store = await openStore(config.databaseUrl);
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  const ids = new IdGenerator(store.instanceId, () => clock.now());
  const box = SecretBox.fromBase64(config.encryptionKey);
  const connectors = options.connectors ?? new ConnectorRegistry();

  const accounts = new AccountService({ store, ids, clock, authCacheMs: config.authCacheMs });
  const channels = new ChannelService({ store, ids, clock, box, connectors, webhookAllowlist: config.webhook.allowlist });
  const services: Services = {
    store,
    accounts,
    channels,
    rateLimiter: new RateLimiter(store.rateCounter, clock, config.rateLimitWindowSeconds),
    gate: new ConcurrencyGate(),
    outbox: new Outbox(ids, clock),
    routeExtensions: [...(options.extraRoutes ?? [])],
  };

  const app = await buildApp({ logger, services, baseUrl: config.publicUrl, bodyLimitBytes: config.bodyLimitBytes, tls: config.tls });
  const stoppers: Array<() => Promise<void>> = [];

  return {
    config,
    logger,
    clock,
    store,
    services,
    ids,
    app,
    startWorkers() {
      // Workers (webhook delivery, asynchronous platform sends) register here as they are built.
      void stoppers;
    },
    async close() {
      await app.close();
      for (const stop of stoppers.reverse()) await stop();
      await store.close();
    },
  };
}
