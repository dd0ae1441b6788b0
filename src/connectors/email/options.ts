import type { MediaDownloader } from '../media-download.js';

/** How the email connector reaches the mail provider and checks its calls. */
export interface EmailOptions {
  /** The provider's API origin per region (`POST {apiUrl}/v3/{domain}/messages`). */
  apiUrls: { us: string; eu: string };
  timeoutMs: number;
  /** The service's inbound URL of a channel's endpoint (`{public_url}/inbound/{channel_id}/{endpoint}`). */
  inboundUrl(channelId: string, endpoint: string): string;
  /** The account's webhook signing key, for channels that give none of their own. */
  webhookSigningKey?: string | undefined;
  /** How old a signed call may be (ms). */
  signatureMaxAgeMs: number;
  /** Files attached to a send are downloaded through the address guard, this large at most. */
  media: MediaDownloader;
  maxAttachmentBytes: number;
  /** The service's clock (ms): signature timestamps are checked against it. */
  now(): number;
}

/** The provider retries a refused callback with the same signed body for about 8 hours. */
export const DEFAULT_SIGNATURE_MAX_AGE_S = 12 * 3600;

/** A signed call from further ahead than this is refused (clocks differ a little). */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** The provider takes 25 MB per message; one attachment may use most of it. */
export const DEFAULT_MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** The provider's limit on a whole message. */
export const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

/** The webhook ids the service registers on the channel's domain. */
export const EVENT_WEBHOOKS = ['delivered', 'permanent_fail', 'temporary_fail', 'opened'] as const;

/** The user variable (`v:`) that carries the service's message id; events echo it. */
export const REFERENCE_VARIABLE = 'parley-message-id';
