import { APP_BASE } from '../router';

/** The channel detail page, or one of its tabs ('webhook'). */
export function channelPath(id: string, tab?: string): string {
  return `${APP_BASE}/channels/${encodeURIComponent(id)}${tab ? `/${tab}` : ''}`;
}

export function editChannelPath(id: string): string {
  return `${APP_BASE}/channels/${encodeURIComponent(id)}/edit`;
}
