import { loadSettings, type Config } from '../config.js';
import type { Clock } from '../lib/clock.js';
import type { ConnectorRegistry } from '../connectors/connector.js';
import { CONNECTOR_SETTINGS, defaultConnectors, type ConnectorSettings } from '../connectors/registry-defaults.js';
import { createServiceChatConnector } from '../connectors/service_chat/connector.js';
import { ChatPushRelay } from '../domain/webchat/push.js';
import type { DomainSignals } from '../domain/signals.js';

/** The connectors' own variables, checked before anything opens (a bad one stops the start). */
export function connectorSettingsOf(config: Config): ConnectorSettings {
  return loadSettings(config, CONNECTOR_SETTINGS);
}

export interface ConnectorsWiring {
  connectors: ConnectorRegistry;
  /** How service_chat's connector reaches the browsers: attached to the chat server once it exists. */
  chatPush: ChatPushRelay;
}

/**
 * The platform connectors (or the tests' own registry). States their ordinary calls reveal (a
 * disconnected page) become the `channelStateReported` signal. service_chat's connector is the
 * service itself: always there, reaching the browsers through the chat push relay.
 */
export function wireConnectors(
  deps: { config: Config; clock: Clock; signals: DomainSignals; settings: ConnectorSettings },
  replacement?: ConnectorRegistry,
): ConnectorsWiring {
  const { config, clock, signals, settings } = deps;
  const connectors =
    replacement ??
    defaultConnectors({
      publicUrl: config.publicUrl,
      now: () => clock.now(),
      channelStates: { report: (channel, state) => signals.emit('channelStateReported', { channel, state }) },
      ...settings,
    });
  const chatPush = new ChatPushRelay();
  if (!connectors.has('service_chat')) connectors.register(createServiceChatConnector({ push: chatPush }));
  return { connectors, chatPush };
}
