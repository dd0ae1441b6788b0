import { Type } from '@sinclair/typebox';
import { ConnectorRegistry, type ChannelStateReports } from './connector.js';
import { allowlistEntryOf, MediaDownloader } from './media-download.js';
import { listSetting, settingsFragment, type SettingsOf } from '../lib/env-settings.js';
import { TYPE_MODULES, TYPE_SETTINGS } from '../channel-types/modules.js';
import type { ConnectorContext } from '../channel-types/module.js';

/** What every connector shares: the deadline of each platform call, and where received files may come from. */
const platformSettings = settingsFragment(
  {
    PLATFORM_TIMEOUT_MS: Type.Optional(Type.Integer({ minimum: 1 })),
    MEDIA_ALLOWLIST: Type.Optional(Type.String()),
  },
  (v) => ({
    timeoutMs: v.PLATFORM_TIMEOUT_MS ?? 10_000,
    /** Private hosts, addresses and ranges (optionally with a port) received files may be downloaded from. */
    mediaAllowlist: listSetting(v.MEDIA_ALLOWLIST) as readonly string[],
  }),
);

/**
 * The configuration the connectors contribute: the shared fragment and one per type that has
 * settings (its module's), under the type's name. The runtime hands this list to config.ts, which
 * checks every variable at start; config.ts itself names no platform.
 */
export const CONNECTOR_SETTINGS = { platforms: platformSettings, ...TYPE_SETTINGS };

export type ConnectorSettings = SettingsOf<typeof CONNECTOR_SETTINGS>;

/** What the platform connectors need (runtime.ts passes it): their settings and the service's public address. */
export type PlatformConnectorSettings = ConnectorSettings & {
  /** `{base_url}`: the service's public address ending in /v1; inbound URLs are built from it. */
  publicUrl: string;
  /** The service's clock (ms), for platform signatures with a time (the SMS provider's JWT); Date.now when not given. */
  now?: () => number;
  /** Where connectors report channel states their calls revealed (a disconnected page). */
  channelStates?: ChannelStateReports;
};

/** The registry with every platform connector that is built (each type's module), configured from the settings. */
export function defaultConnectors(settings: PlatformConnectorSettings): ConnectorRegistry {
  const registry = new ConnectorRegistry();
  const own = (type: string): unknown => (settings as Record<string, unknown>)[type];
  // The platforms' own base URLs are trusted as configured (the local stand-ins in development),
  // each exactly at its host and port; anything else private needs MEDIA_ALLOWLIST.
  const platforms = TYPE_MODULES.flatMap((m) => m.mediaSources?.(own(m.type)) ?? [])
    .map(allowlistEntryOf)
    .filter((e): e is string => e !== null);
  const mediaAllowlist = [...settings.platforms.mediaAllowlist, ...platforms];
  const context: ConnectorContext = {
    publicUrl: settings.publicUrl,
    inboundUrl: (channelId, endpoint) => `${settings.publicUrl}/inbound/${channelId}/${endpoint}`,
    timeoutMs: settings.platforms.timeoutMs,
    now: settings.now ?? Date.now,
    media: new MediaDownloader({ allowlist: mediaAllowlist }),
    mediaAllowlist,
    ...(settings.channelStates ? { channelStates: settings.channelStates } : {}),
  };
  for (const m of TYPE_MODULES) if (m.connector) registry.register(m.connector(own(m.type), context));
  return registry;
}
