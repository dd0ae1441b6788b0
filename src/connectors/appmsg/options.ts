import type { MediaDownloader } from '../media-download.js';

/**
 * How the appmsg connector reaches the platform. The auth-token and signature headers carry the
 * platform's brand in their names, so they are configuration (neutral defaults matching the stand-in).
 */
export interface AppmsgOptions {
  /** Platform origin, e.g. http://127.0.0.1:9104 (endpoints are `{apiUrl}/pa/<endpoint>`). */
  apiUrl: string;
  /** Header that carries the bot's token on every call. */
  authHeaderName: string;
  /** Header of the platform's content signature on its callbacks (hex HMAC-SHA256 of the raw body under the token). */
  signatureHeaderName: string;
  /** The service's inbound URL of a channel's endpoint, registered as the bot's webhook. */
  inboundUrl(channelId: string, endpoint: string): string;
  timeoutMs: number;
  /** Downloads received files and avatars, and reads the size of files sent, through the address guard. */
  media: MediaDownloader;
}

/** Largest file the platform takes, by kind (platforms.md §3.5): videos 26 MB, files 50 MB; received files are copied up to the larger. */
export const MAX_VIDEO_BYTES = 26 * 1024 * 1024;
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
export const MAX_MEDIA_BYTES = MAX_FILE_BYTES;

/** The callbacks the service asks for (`message` cannot be filtered out and is always sent). */
export const EVENT_TYPES = ['delivered', 'seen', 'failed', 'subscribed', 'unsubscribed', 'conversation_started'] as const;

/** The endpoint of a channel's inbound URL the bot's webhook is registered at. */
export const EVENTS_ENDPOINT = 'events';
