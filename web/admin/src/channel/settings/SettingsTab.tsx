import type { ChannelPageProps } from '../../channels/channel-route';
import { useChannelType } from '../../channels/channel-types';
import { Loading, Notice } from '../../ui';
import { ServiceChatSettings } from './ServiceChatSettings';
import { SocialnetSettings } from './SocialnetSettings';

/**
 * The Settings tab: an editor for the settings the type has (its `settings` names them): the page's
 * menu and inputs with the whitelist, or the whitelist alone; other types have none.
 */
export function SettingsTab({ channel }: ChannelPageProps) {
  const info = useChannelType(channel.type);
  if (!info) return <Loading />;
  if (info.settings.includes('menu')) return <SocialnetSettings channel={channel} />;
  if (info.settings.includes('domains_whitelist')) return <ServiceChatSettings channel={channel} />;
  return <Notice>Channels of type {channel.type} have no settings.</Notice>;
}
