import type { ChannelStateReports } from '../connector.js';
import type { MediaDownloader } from '../media-download.js';

/**
 * How the socialnet_chat connector reaches the platform: the app's credentials and the names in
 * the platform's protocol that carry its brand (configurable, neutral defaults matching the
 * stand-in under sandbox/socialnet_chat).
 */
export interface SocialnetChatOptions {
  /** Platform origin, e.g. http://127.0.0.1:9101 (the API is `{apiUrl}/{apiVersion}/...`). */
  apiUrl: string;
  /** Pinned API version, e.g. `v25.0`. */
  apiVersion: string;
  /** The platform app the service runs as; without it tokens are not exchanged and inbound calls cannot be verified. */
  appId?: string;
  /** Key of inbound signatures and of `appsecret_proof`. */
  appSecret?: string;
  /** Answered in the subscription handshake. */
  verifyToken?: string;
  /** The vendor's two-letter abbreviation in the token exchange (`<pf>_exchange_token`). */
  tokenPrefix: string;
  /** Path segment of the page profile (settings) API, `<product>_profile`. */
  profileEdge: string;
  /** The service's inbound URL for the app (`{public_url}/inbound/socialnet_chat`). */
  callbackUrl: string;
  /** Register `callbackUrl` as the app's webhook when a page is connected. */
  subscribeApp: boolean;
  timeoutMs: number;
  /** Largest attachment or profile picture copied into the file store. */
  maxMediaBytes: number;
  /** Downloads received files through the address guard. */
  media: MediaDownloader;
  /** Told when a call finds the page disconnected (its token refused with code 190). */
  channelStates?: ChannelStateReports;
}

/** The page's state as the channel shows it (`socialnet_page.page_state`). */
export const PAGE_CONNECTED = 'connected';
export const PAGE_DISCONNECTED = 'disconnected';

/**
 * Webhook fields the connector subscribes a page to (and the app, when it registers its callback):
 * besides messages and receipts, `messaging_referrals` (a short link or ad re-opened the thread)
 * and `standby` (what the user does while another app, such as the page inbox, owns the thread).
 */
export const WEBHOOK_FIELDS = [
  'messages',
  'messaging_postbacks',
  'messaging_optins',
  'message_deliveries',
  'message_reads',
  'message_echoes',
  'messaging_referrals',
  'standby',
] as const;

/** The platform's media limit (25 MB). */
export const DEFAULT_MAX_MEDIA_BYTES = 25 * 1024 * 1024;
