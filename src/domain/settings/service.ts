import type { Store } from '../../store/store.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto.js';
import { ApiError, say } from '../../lib/errors.js';
import type { ConnectorRegistry } from '../../connectors/connector.js';
import type { ChannelMode } from '../../schemas/channel-types.js';
import { definitionOf } from '../../channel-types/index.js';
import { decodeChannel, type Channel } from '../channels/view.js';
import type { DomainSignals } from '../signals.js';

export interface SettingsServiceDeps {
  store: Store;
  clock: Clock;
  box: SecretBox;
  connectors: ConnectorRegistry;
  /** Told `channelChanged` after a channel's settings changed, so per-process channel caches drop it. */
  signals: DomainSignals;
}

export type Settings = Record<string, unknown>;

/** Every setting of the type, null when unset (Get Settings shows them all). */
export function settingsView(channel: Pick<Channel, 'type' | 'settings'>): Settings {
  const out: Settings = {};
  for (const name of definitionOf(channel.type).settings.names) out[name] = channel.settings[name] ?? null;
  return out;
}

/**
 * Channel settings, stored in the channel's settings JSON. PATCH semantics: a value sets, null
 * deletes, absent names stay. Settings that act on the platform are applied there first and
 * stored only when the platform took them.
 */
export class SettingsService {
  constructor(private readonly deps: SettingsServiceDeps) {}

  private async channel(accountId: number, channelId: number): Promise<Channel> {
    const row = await this.deps.store.channels.find(accountId, channelId);
    if (!row) throw ApiError.notFound('Channel');
    return decodeChannel(row, this.deps.box);
  }

  async get(accountId: number, channelId: number): Promise<Settings> {
    return settingsView(await this.channel(accountId, channelId));
  }

  async update(accountId: number, channelId: number, body: Record<string, unknown>): Promise<Settings> {
    const channel = await this.channel(accountId, channelId);
    const spec = definitionOf(channel.type).settings;
    for (const [name, value] of Object.entries(body)) {
      // Own properties only: `toString` or `constructor` are not settings.
      const check = Object.hasOwn(spec.check, name) ? spec.check[name] : undefined;
      if (!check) throw ApiError.invalid(name, value, say.notSupported(name));
      if (value !== null) check(value, name);
    }
    const changed = new Set(Object.keys(body));
    const next: Settings = { ...channel.settings };
    for (const [name, value] of Object.entries(body)) {
      if (value === null) delete next[name];
      else next[name] = value;
    }
    spec.crossCheck?.(next, changed);
    if (changed.size === 0) return settingsView(channel);

    if (spec.appliedOnPlatform) await this.applyOnPlatform(channel, settingsView({ type: channel.type, settings: next }), [...changed]);
    await this.deps.store.channels.update(accountId, channelId, { settings: JSON.stringify(next), updated_at: this.deps.clock.now() });
    this.deps.signals.emit('channelChanged', { channelId: channel.id });
    return settingsView({ type: channel.type, settings: next });
  }

  /** The platform must take the settings first; without a connector that can, nothing is stored. */
  private async applyOnPlatform(channel: Channel, settings: Settings, changed: string[]): Promise<void> {
    const pusher = this.deps.connectors.role(channel.type, 'settings');
    if (!pusher) {
      throw ApiError.of(
        'platform_error',
        `Settings of ${channel.type} channels act on the platform, and this server has no platform connection for them yet; nothing was changed.`,
      );
    }
    const result = await pusher.pushSettings(
      { id: channel.id, type: channel.type, mode: channel.mode as ChannelMode, config: channel.config, secrets: channel.secrets },
      settings,
      changed,
    );
    if (result.ok) return;
    if (result.code === 'rate_limited') {
      throw ApiError.of(
        'platform_error',
        `The platform's rate limit for settings was reached; it usually recovers within several minutes. Nothing was changed. (${result.message})`,
      );
    }
    throw ApiError.of('platform_error', `The platform refused the settings: ${result.message}`);
  }
}
