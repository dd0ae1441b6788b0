import type { ChannelRow } from '../../store/repos/channels.js';
import type { SecretBox } from '../../lib/crypto.js';
import { isoTime } from '../../lib/clock.js';
import type { ChannelType } from '../../schemas/channel-types.js';
import { TYPE_SPECS, type ChannelView } from './schemas.js';

export type Placement = 'get' | 'list';

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
 * The channel as the API shows it. `placement` carries the specification's rbm quirk: region is
 * `rbm.region` in Get Channel and a top-level `region` in list, create and update responses.
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
  const spec = TYPE_SPECS[channel.type];
  const { region, ...config } = channel.config;
  const own: Record<string, unknown> = { ...config, ...channel.secrets };
  switch (channel.type) {
    case 'socialnet_chat':
      view.socialnet_page = {
        id: String(own.id),
        name: (own.name as string | undefined) ?? null,
        category: (own.category as string | undefined) ?? null,
        access_token: String(own.access_token),
      };
      break;
    case 'mobile':
      view.provider = {
        ...own,
        status_webhook_url: `${baseUrl}/inbound/${channel.id}/status`,
        receive_webhook_url: `${baseUrl}/inbound/${channel.id}/receive`,
      };
      break;
    case 'rbm':
      view.rbm = { agent_name: String(own.agent_name), agent_state: String(own.agent_state ?? 'new') };
      if (placement === 'get') view.rbm.region = String(region);
      else view.region = String(region);
      break;
    case 'botmsg':
      view.botmsg = {
        name: (own.name as string | undefined) ?? null,
        username: (own.username as string | undefined) ?? null,
        access_token: String(own.access_token),
      };
      break;
    default:
      if (spec.key) (view as Record<string, unknown>)[spec.key] = own;
  }
  return view;
}
