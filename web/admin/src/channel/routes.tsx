// The tabs of the channel detail page after "Details", in order: Webhook, Settings,
// Conversations, Local trial. Each entry is a page of src/channel/.
import type { ChannelRoute } from '../channels/channel-route';

export const channelRoutes: ChannelRoute[] = [];
