import type { Base } from './base.js';
import type { ConnectorRegistry } from '../connectors/connector.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { Metrics } from '../operations/metrics.js';
import { InboundService } from '../domain/inbound/service.js';
import type { ClassifierWiring } from './nlp.js';

/**
 * Platform callbacks (socialnet_chat, botmsg, ...) at /v1/inbound/...: received messages, delivery
 * reports (a message's status, then its webhook event) and opt-outs, each verdict counted.
 */
export function wireInbound(
  base: Base,
  deps: { connectors: ConnectorRegistry; storedFiles: StoredFiles; classify: ClassifierWiring['classify']; metrics: Metrics },
): InboundService {
  const { config, store, ids, clock, box, outbox, logger, signals } = base;
  return new InboundService({
    store,
    ids,
    clock,
    box,
    outbox,
    connectors: deps.connectors,
    files: deps.storedFiles,
    defaultPhoneRegion: config.defaultPhoneRegion,
    publicUrl: config.publicUrl,
    signals,
    classify: deps.classify,
    logger: logger.child({ component: 'inbound' }),
    onVerdict: (type, verdict) => deps.metrics.inbound(type, verdict),
  });
}
