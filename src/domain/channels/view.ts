import type { ChannelRow } from '../../store/repos/channels.js';
import type { SecretBox } from '../../lib/crypto.js';
import { isoTime } from '../../lib/clock.js';
import type { ChannelType } from '../../schemas/channel-types.js';
import { definitionOf, type Placement } from '../../channel-types/index.js';
import type { ChannelView } from './schemas.js';

export type { Placement };

/** A channel as the domain works with it: row fields decoded, credentials decrypted. */
export interface Channel {
  id: string;
  accountId: number;
  type: ChannelType;
  name: string;
  mode: string;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
  webhook: { id: string; url: string; secret: string; sslVerification: boolean } | null;
  settings: Record<string, unknown>;
  createdAt: string;
}

export function decodeChannel(row: ChannelRow, box: SecretBox): Channel {
  return {
    id: String(row.id),
    accountId: row.account_id,
    type: row.type as ChannelType,
    name: row.name,
    mode: row.mode,
    config: JSON.parse(row.config) as Record<string, unknown>,
    secrets: row.secrets ? box.decryptJson<Record<string, string>>(row.secrets) : {},
    webhook:
      row.webhook_id !== null && row.webhook_url !== null && row.webhook_secret !== null
        ? { id: String(row.webhook_id), url: row.webhook_url, secret: box.decrypt(row.webhook_secret), sslVerification: row.webhook_ssl_verification === 1 }
        : null,
    settings: JSON.parse(row.settings) as Record<string, unknown>,
    createdAt: isoTime(row.created_at),
  };
}

/**
 * The channel as the API shows it: the common fields, then the type's own (its definition renders
 * them; `placement` is there for the specification's quirks, e.g. where rbm shows the region).
 */
export function channelView(channel: Channel, placement: Placement, baseUrl: string): ChannelView {
  const view: ChannelView = {
    id: channel.id,
    type: channel.type,
    name: channel.name,
    mode: channel.mode,
    webhook: channel.webhook
      ? { id: channel.webhook.id, url: channel.webhook.url, secret: channel.webhook.secret, ssl_verification: channel.webhook.sslVerification }
      : null,
  };
  const { region, ...config } = channel.config;
  const own: Record<string, unknown> = { ...config, ...channel.secrets };
  const inboundUrl = (endpoint: string) => `${baseUrl}/inbound/${channel.id}/${endpoint}`;
  return Object.assign(view, definitionOf(channel.type).view.render({ own, region, placement, inboundUrl }));
}
