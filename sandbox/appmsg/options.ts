// Options of the appmsg stand-in. Header names and the client-version field carry the product's
// brand on the real platform; here they are options with neutral defaults.

export interface AppmsgOptions {
  authHeaderName?: string;
  signatureHeaderName?: string;
  /** Name of the client-version field in get_user_details (the real one is named after the product). */
  clientVersionField?: string;
  /** Refuse non-HTTPS webhook URLs (the real platform needs a trusted certificate). Default false. */
  requireHttpsWebhook?: boolean;
  webhookTimeoutMs?: number;
  publicBaseUrl?: string;
  userAgent?: string;
  logger?: boolean;
  now?: () => number;
}

export interface ResolvedAppmsgOptions {
  authHeaderName: string;
  signatureHeaderName: string;
  clientVersionField: string;
  requireHttpsWebhook: boolean;
  webhookTimeoutMs: number;
  publicBaseUrl: string | undefined;
  userAgent: string;
  logger: boolean;
  now: () => number;
}

export function resolveOptions(o: AppmsgOptions): ResolvedAppmsgOptions {
  return {
    authHeaderName: o.authHeaderName ?? 'X-Appmsg-Auth-Token',
    signatureHeaderName: o.signatureHeaderName ?? 'X-Appmsg-Content-Signature',
    clientVersionField: o.clientVersionField ?? 'appmsg_version',
    requireHttpsWebhook: o.requireHttpsWebhook ?? false,
    webhookTimeoutMs: o.webhookTimeoutMs ?? 20_000,
    publicBaseUrl: o.publicBaseUrl,
    userAgent: o.userAgent ?? 'appmsg-sandbox/1.0',
    logger: o.logger ?? false,
    now: o.now ?? Date.now,
  };
}
