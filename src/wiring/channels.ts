import type { Base } from './base.js';
import type { ConnectorRegistry } from '../connectors/connector.js';
import { ChannelService } from '../domain/channels/service.js';
import { ChannelCache } from '../domain/messages/channel-cache.js';
import { SettingsService } from '../domain/settings/service.js';
import { PlatformStateService } from '../domain/platform-state/service.js';
import { TestersService } from '../domain/platform-state/testers.js';

export interface ChannelsWiring {
  channels: ChannelService;
  /** Channels by id for the send path, dropped on the `channelChanged` signal. */
  channelCache: ChannelCache;
  settings: SettingsService;
  /** Channel states the platform moves (the rbm agent, a socialnet_chat page's connection). */
  platformState: PlatformStateService;
  /** The testers of such channels. */
  testers: TestersService;
}

/** Channels, their per-process cache, their settings, and the states their platform moves. */
export function wireChannels(base: Base, connectors: ConnectorRegistry, removeFiles: (keys: readonly string[]) => Promise<void>): ChannelsWiring {
  const { config, store, ids, clock, box, signals } = base;
  const channels = new ChannelService({ store, ids, clock, box, connectors, webhookAllowlist: config.webhook.allowlist, removeFiles, signals });
  const channelCache = new ChannelCache(channels, config.channelCacheMs, () => clock.now(), signals);
  signals.on('channelChanged', ({ channelId }) => channelCache.forget(Number(channelId)));
  const settings = new SettingsService({ store, clock, box, connectors, signals });
  const testers = new TestersService({ store, clock, box, connectors, defaultPhoneRegion: config.defaultPhoneRegion, signals });
  return { channels, channelCache, settings, platformState: wirePlatformState(base, connectors), testers };
}

/** A saved channel may need its platform asked (a `platform_state` job); a reported state is kept. */
function wirePlatformState(base: Base, connectors: ConnectorRegistry): PlatformStateService {
  const { store, clock, ids, box, outbox, logger, signals } = base;
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
  return platformState;
}
