// Options of the botmsg stand-in. The secret-token header carries the platform's name on the real
// platform, so it is an option with a neutral default.

export interface BotmsgOptions {
  /** Header that carries the secret_token registered with setWebhook. */
  secretHeaderName?: string;
  /** Refuse non-HTTPS webhook URLs like the real platform. Default false (local services use http). */
  requireHttpsWebhook?: boolean;
  /** Allowed webhook ports (the real platform: 443, 80, 88, 8443). Default: any port. */
  allowedWebhookPorts?: number[] | null;
  /** Download photo/document URLs given to send methods, as the real platform does. Default true. */
  fetchUrls?: boolean;
  urlFetchTimeoutMs?: number;
  webhookTimeoutMs?: number;
  /** How long a callback query can be answered. Default 15 minutes. */
  callbackQueryTtlMs?: number;
  /** Origin put into URLs the stand-in hands out. Default: its listen address. */
  publicBaseUrl?: string;
  userAgent?: string;
  logger?: boolean;
  now?: () => number;
}

export interface ResolvedBotmsgOptions {
  secretHeaderName: string;
  requireHttpsWebhook: boolean;
  allowedWebhookPorts: number[] | null;
  fetchUrls: boolean;
  urlFetchTimeoutMs: number;
  webhookTimeoutMs: number;
  callbackQueryTtlMs: number;
  publicBaseUrl: string | undefined;
  userAgent: string;
  logger: boolean;
  now: () => number;
}

export function resolveOptions(o: BotmsgOptions): ResolvedBotmsgOptions {
  return {
    secretHeaderName: o.secretHeaderName ?? 'X-Botmsg-Bot-Api-Secret-Token',
    requireHttpsWebhook: o.requireHttpsWebhook ?? false,
    allowedWebhookPorts: o.allowedWebhookPorts ?? null,
    fetchUrls: o.fetchUrls ?? true,
    urlFetchTimeoutMs: o.urlFetchTimeoutMs ?? 10_000,
    webhookTimeoutMs: o.webhookTimeoutMs ?? 20_000,
    callbackQueryTtlMs: o.callbackQueryTtlMs ?? 15 * 60 * 1000,
    publicBaseUrl: o.publicBaseUrl,
    userAgent: o.userAgent ?? 'botmsg-sandbox/1.0',
    logger: o.logger ?? false,
    now: o.now ?? Date.now,
  };
}
