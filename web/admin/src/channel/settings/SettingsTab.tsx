import type { ChannelPageProps } from '../../channels/channel-route';
import { Notice } from '../../ui';
import { ServiceChatSettings } from './ServiceChatSettings';
import { SocialnetSettings } from './SocialnetSettings';

/** The Settings tab: each type's own settings; other types have none. */
export function SettingsTab({ channel }: ChannelPageProps) {
  if (channel.type === 'service_chat') return <ServiceChatSettings channel={channel} />;
  if (channel.type === 'socialnet_chat') return <SocialnetSettings channel={channel} />;
  return <Notice>Channels of type {channel.type} have no settings.</Notice>;
}
