// Options of the socialnet_chat stand-in. Names that carry a brand on the real platform are options
// with neutral defaults; a connector must be configured with the same values.

export interface SocialnetChatOptions {
  /** App credentials the stand-in knows (webhooks are signed with the secret). */
  appId?: string;
  appSecret?: string;
  appName?: string;
  /**
   * The vendor's two-letter abbreviation used in the token-exchange grant type and parameter
   * (`<pf>_exchange_token`) and in the trace-id field of errors (`<pf>trace_id`). Default "sn".
   */
  platformAbbreviation?: string;
  /** Require `appsecret_proof` on every API call (an app setting on the real platform). */
  requireAppSecretProof?: boolean;
  /**
   * The app passed the platform's review for the user-profile fields `gender`, `timezone` and
   * `locale`. Default false, as for most apps: asking for one of them fails the whole profile call
   * with code 100, subcode 2018247.
   */
  profileFieldsReviewed?: boolean;
  /** Message tags accepted with messaging_type MESSAGE_TAG. */
  acceptedTags?: string[];
  /** Download attachment URLs given to the Send API, as the real platform does. Default true. */
  fetchAttachmentUrls?: boolean;
  /** Timeout for those downloads (the real platform allows 75 s for video). Default 10 s. */
  attachmentFetchTimeoutMs?: number;
  /** Timeout for webhook calls to the service. Default 20 s. */
  webhookTimeoutMs?: number;
  /** Send a delivery event by itself right after each successful send. Default false (tests call deliver). */
  autoDeliver?: boolean;
  /** Escape non-ASCII and "/" in webhook bodies like the real platform, so signatures must be checked on raw bytes. Default true. */
  escapeWebhookJson?: boolean;
  /** Origin put into URLs the stand-in serves (profile pictures, user attachments). Default: its listen address. */
  publicBaseUrl?: string;
  /** User-Agent of webhook calls. */
  userAgent?: string;
  logger?: boolean;
  now?: () => number;
}

export interface ResolvedSocialnetChatOptions {
  appId: string;
  appSecret: string;
  appName: string;
  platformAbbreviation: string;
  requireAppSecretProof: boolean;
  profileFieldsReviewed: boolean;
  acceptedTags: string[];
  fetchAttachmentUrls: boolean;
  attachmentFetchTimeoutMs: number;
  webhookTimeoutMs: number;
  autoDeliver: boolean;
  escapeWebhookJson: boolean;
  publicBaseUrl: string | undefined;
  userAgent: string;
  logger: boolean;
  now: () => number;
}

export const CURRENT_TAGS = ['CONFIRMED_EVENT_UPDATE', 'POST_PURCHASE_UPDATE', 'ACCOUNT_UPDATE', 'HUMAN_AGENT'];

export function resolveOptions(o: SocialnetChatOptions, defaults: { appId: string; appSecret: string }): ResolvedSocialnetChatOptions {
  return {
    appId: o.appId ?? defaults.appId,
    appSecret: o.appSecret ?? defaults.appSecret,
    appName: o.appName ?? 'Sandbox App',
    platformAbbreviation: o.platformAbbreviation ?? 'sn',
    requireAppSecretProof: o.requireAppSecretProof ?? false,
    profileFieldsReviewed: o.profileFieldsReviewed ?? false,
    acceptedTags: o.acceptedTags ?? CURRENT_TAGS,
    fetchAttachmentUrls: o.fetchAttachmentUrls ?? true,
    attachmentFetchTimeoutMs: o.attachmentFetchTimeoutMs ?? 10_000,
    webhookTimeoutMs: o.webhookTimeoutMs ?? 20_000,
    autoDeliver: o.autoDeliver ?? false,
    escapeWebhookJson: o.escapeWebhookJson ?? true,
    publicBaseUrl: o.publicBaseUrl,
    userAgent: o.userAgent ?? 'socialnet-chat-sandbox/1.0',
    logger: o.logger ?? false,
    now: o.now ?? Date.now,
  };
}
