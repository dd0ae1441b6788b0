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
  /** How a callback proves it comes from the platform: the token in the URL, or a signature header (see CallbackAuth). */
  callbackAuth: CallbackAuth;
  /** Header of the callback signature (hex HMAC-SHA256 of the raw body under the channel's callback secret), in mode `signature`. */
  signatureHeaderName: string;
  /** What each `message_status` number of a status callback means. */
  statusCodes: Readonly<Record<string, CallbackStatus>>;
  /** The common sender identity (a numeric service id) channels in mode `shared` send under; null: shared mode cannot send. */
  sharedSenderId: string | null;
  timeoutMs: number;
  /** Hosts a video's size may be read from although private (MEDIA_ALLOWLIST and the platforms' own). */
  mediaAllowlist: readonly string[];
}

export const DEFAULT_PATH_SEGMENT = 'appmsgsrvc';
export const DEFAULT_SIGNATURE_HEADER = 'X-Sandbox-Signature';

/**
 * `url_token`: the callback URL the platform is given carries the channel's callback secret as
 * `?token=`, compared on each call (no public integration shows the platform signing its callbacks);
 * `signature`: hex HMAC-SHA256 of the raw body in `signatureHeaderName` (a relay that signs).
 */
export const CALLBACK_AUTHS = ['url_token', 'signature'] as const;
export type CallbackAuth = (typeof CALLBACK_AUTHS)[number];

/** What a status callback reports. */
export const CALLBACK_STATUSES = ['delivered', 'seen', 'expired', 'subscribe', 'unsubscribe'] as const;
export type CallbackStatus = (typeof CALLBACK_STATUSES)[number];

/** `message_status` numbers as an emulator of the partner API sends them (0, 1, 2; 4 and 5 for subscriptions). */
export const DEFAULT_STATUS_CODES = '0=delivered,1=seen,2=expired,4=subscribe,5=unsubscribe';

/** `0=delivered,1=seen,...` as a map; null when it is not one. */
export function parseStatusCodes(text: string): Record<string, CallbackStatus> | null {
  const map: Record<string, CallbackStatus> = {};
  for (const pair of text.split(',')) {
    const m = /^\s*(\d{1,3})\s*=\s*([a-z]+)\s*$/.exec(pair);
    if (!m || !(CALLBACK_STATUSES as readonly string[]).includes(m[2]!)) return null;
    map[m[1]!] = m[2] as CallbackStatus;
  }
  return map;
}

/** The channel's own URL the platform's callbacks go to: `/v1/inbound/{channel_id}/callbacks`. */
export const CALLBACKS_ENDPOINT = 'callbacks';

/** The platform's bounds of a message's time to live (s). */
export const TTL_MIN_S = 30;
export const TTL_MAX_S = 1_209_600;

/** Message types (a public integration's type table, spec v11.3). */
export const TYPES = {
  text: 206,
  image: 207,
  imageTextButton: 208,
  textButton: 209,
  file: 220,
  video: 230,
  list: 801,
  carousel: 901,
  template: 1702,
} as const;

/** Types the platform bills as promotions: sent with `label: promotion` (else status 18, or billed wrong). */
export const PROMOTIONAL_TYPES: ReadonlySet<number> = new Set([TYPES.image, TYPES.imageTextButton, TYPES.textButton, TYPES.video, TYPES.carousel]);

/** Largest video the platform takes. */
export const VIDEO_MAX_BYTES = 200 * 1024 * 1024;
/** Longest file name the platform shows. */
export const FILE_NAME_MAX = 25;
