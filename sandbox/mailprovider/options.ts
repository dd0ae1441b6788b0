// Options of the mailprovider stand-in (behind `email` channels).

export interface MailproviderOptions {
  /** Initial private API key (HTTP Basic password, user "api"). Default random. */
  apiKey?: string;
  /** HTTP webhook signing key (separate from the API key). Default random. */
  webhookSigningKey?: string;
  /** Domains that exist from the start. */
  domains?: string[];
  webhookTimeoutMs?: number;
  publicBaseUrl?: string;
  userAgent?: string;
  logger?: boolean;
  now?: () => number;
}

export interface ResolvedMailproviderOptions {
  webhookTimeoutMs: number;
  publicBaseUrl: string | undefined;
  userAgent: string;
  logger: boolean;
  now: () => number;
}

export function resolveOptions(o: MailproviderOptions): ResolvedMailproviderOptions {
  return {
    webhookTimeoutMs: o.webhookTimeoutMs ?? 20_000,
    publicBaseUrl: o.publicBaseUrl,
    userAgent: o.userAgent ?? 'mailprovider-sandbox/1.0',
    logger: o.logger ?? false,
    now: o.now ?? Date.now,
  };
}
