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

/** How a view shows secrets: in clear, as the specification's Channel shape does (the default), or left out. */
export interface ChannelViewOptions {
  /** Leaves out `webhook.secret` and every platform credential the view would show in clear. */
  omitSecrets?: boolean;
}

/**
 * The channel as the API shows it: the common fields, then the type's own (its definition renders
 * them; `placement` is there for the specification's quirks, e.g. where rbm shows the region).
 */
export function channelView(channel: Channel, placement: Placement, baseUrl: string, options: ChannelViewOptions = {}): ChannelView {
  const webhook = channel.webhook;
  const view: ChannelView = {
    id: channel.id,
    type: channel.type,
    name: channel.name,
    mode: channel.mode,
    webhook: webhook
      ? options.omitSecrets
        ? ({ id: webhook.id, url: webhook.url, ssl_verification: webhook.sslVerification } as ChannelView['webhook'])
        : { id: webhook.id, url: webhook.url, secret: webhook.secret, ssl_verification: webhook.sslVerification }
      : null,
  };
  const { region, ...config } = channel.config;
  const own: Record<string, unknown> = { ...config, ...channel.secrets };
  const inboundUrl = (endpoint: string) => `${baseUrl}/inbound/${channel.id}/${endpoint}`;
  const definition = definitionOf(channel.type);
  const typed = definition.view.render({ own, region, placement, inboundUrl });
  const key = definition.input.key;
  const object = key === undefined ? undefined : typed[key];
  if (options.omitSecrets && object !== null && typeof object === 'object') {
    // Only what is shown as the stored credential goes (an rbm key is shown as its client_email alone).
    const kept = { ...(object as Record<string, unknown>) };
    for (const field of definition.input.secretFields) if (field in channel.secrets && kept[field] === channel.secrets[field]) delete kept[field];
    typed[key!] = kept;
  }
  return Object.assign(view, typed);
}
