import type { Base } from './base.js';
import type { Services } from '../services.js';
import type { ConnectorRegistry } from '../connectors/connector.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { Metrics } from '../operations/metrics.js';
import { ConcurrencyGate, RateLimiter } from '../domain/limits/rate-limiter.js';
import { NotificationService } from '../domain/notifications/service.js';
import { wireAccounts } from './accounts.js';
import type { ChannelsWiring } from './channels.js';
import { wireMessages } from './messages.js';
import { wireNlpIntegrations, type ClassifierWiring } from './nlp.js';
import { wireWebhooks } from './delivery.js';
import { wireInbound } from './inbound.js';

interface ServiceDeps {
  connectors: ConnectorRegistry;
  channels: ChannelsWiring;
  classifier: ClassifierWiring;
  storedFiles: StoredFiles;
  removeFiles: (keys: readonly string[]) => Promise<void>;
  metrics: Metrics;
}

/** Every domain service, built once: the route groups, the chat server and the workers are handed these. */
export function wireServices(base: Base, deps: ServiceDeps): Services {
  const { config, store, ids, clock, box, outbox } = base;
  const { connectors, channels, classifier, storedFiles, removeFiles, metrics } = deps;
  const { messages, contacts } = wireMessages(base, { connectors, channelCache: channels.channelCache, storedFiles, removeFiles, metrics });
  return {
    store,
    ...wireAccounts({ config, store, ids, clock, removeFiles }),
    channels: channels.channels,
    rateLimiter: new RateLimiter(store.rateCounter, clock, config.rateLimitWindowSeconds),
    gate: new ConcurrencyGate(),
    outbox,
    settings: channels.settings,
    messages,
    contacts,
    platformState: channels.platformState,
    testers: channels.testers,
    nlp: wireNlpIntegrations(base, classifier.classifier, channels.channelCache),
    webhooks: wireWebhooks(base),
    notifications: new NotificationService({ store, clock, box, connectors }),
    inbound: wireInbound(base, { connectors, storedFiles, classify: classifier.classify, metrics }),
  };
}
