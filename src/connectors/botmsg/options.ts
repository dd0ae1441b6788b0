import type { MediaDownloader } from '../media-download.js';

/**
 * How the botmsg connector reaches the platform. The secret-token header carries the platform's
 * brand in its name, so it is configuration (neutral default matching the stand-in).
 */
export interface BotmsgOptions {
  /** Platform origin, e.g. http://127.0.0.1:9102 (methods are `{apiUrl}/bot<token>/<method>`). */
  apiUrl: string;
  /** Header in which the platform repeats the webhook's secret token. */
  secretHeaderName: string;
  /** The service's inbound URL of a channel's endpoint (`{public_url}/inbound/{channel_id}/{endpoint}`), registered as the bot's webhook. */
  inboundUrl(channelId: string, endpoint: string): string;
  timeoutMs: number;
  /** Largest received file copied into the file store (the platform serves downloads up to 20 MB). */
  maxMediaBytes: number;
  /** Downloads received files through the address guard. */
  media: MediaDownloader;
}

export const DEFAULT_MAX_MEDIA_BYTES = 20 * 1024 * 1024;

/**
 * Update types the service asks for: messages, button presses, and the bot's own membership in a
 * private chat (sent only when the user blocks or unblocks the bot).
 */
export const ALLOWED_UPDATES = ['message', 'callback_query', 'my_chat_member'] as const;
