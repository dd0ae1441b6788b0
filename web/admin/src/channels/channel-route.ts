// The contract between the channel detail frame (tabs, header) and the pages of its tabs.
import type { ComponentType } from 'react';
import type { Channel } from '../types';

export interface ChannelPageProps {
  /** The channel as GET /v1/channels/:id answers it. */
  channel: Channel;
  /** Reads the channel again (after a change a tab made), updating the header and every tab. */
  reload: () => Promise<void>;
  /** Params of the matched path (always `id`, plus any of the tab's own). */
  params: Record<string, string>;
  query: URLSearchParams;
}

/** One tab of the channel detail page. */
export interface ChannelRoute {
  /** Full pattern, e.g. '/admin/channels/:id/webhook'; may end in '/*' for pages below it. */
  path: string;
  /** The tab's label. */
  label: string;
  /** Where the tab links to, relative to the channel ('webhook'); defaults to the path's last segment. */
  tab?: string;
  Component: ComponentType<ChannelPageProps>;
}
