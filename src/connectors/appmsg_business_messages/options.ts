/**
 * How the appmsg_business_messages connector reaches the partner API. The path segment and the
 * callback signature header carry the product's name on the real platform, so they are
 * configuration (neutral defaults matching the stand-in).
 */
export interface AppmsgBusinessOptions {
  /** The partner API's origin, e.g. http://127.0.0.1:9106 (`POST {apiUrl}/{pathSegment}/1/send_message`). */
  apiUrl: string;
  /** First path segment of the send URL (the product's name in lower case plus `srvc`). */
  pathSegment: string;
  /** Header of the callback signature (hex HMAC-SHA256 of the raw body under the channel's callback secret). */
  signatureHeaderName: string;
  /** The common sender identity (a numeric service id) channels in mode `shared` send under; null: shared mode cannot send. */
  sharedSenderId: string | null;
  timeoutMs: number;
  /** Hosts a video's size may be read from although private (MEDIA_ALLOWLIST and the platforms' own). */
  mediaAllowlist: readonly string[];
}

export const DEFAULT_PATH_SEGMENT = 'appmsgsrvc';
export const DEFAULT_SIGNATURE_HEADER = 'X-Sandbox-Signature';

/** The channel's own URL the platform's callbacks go to: `/v1/inbound/{channel_id}/callbacks`. */
export const CALLBACKS_ENDPOINT = 'callbacks';

/** The platform's bounds of a message's time to live (s). */
export const TTL_MIN_S = 30;
export const TTL_MAX_S = 1_209_600;

/** Largest video the platform takes, and its longest duration (s). */
export const VIDEO_MAX_BYTES = 200 * 1024 * 1024;
export const VIDEO_MAX_DURATION_S = 600;
/** Longest file name the platform shows. */
export const FILE_NAME_MAX = 25;
