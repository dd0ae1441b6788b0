// Options of the rbm stand-in. Names that carry the vendor's brand (signature header, OAuth scope,
// product key of the launch resource) are options with neutral defaults.

export interface RbmOptions {
  /** Header with base64 HMAC-SHA512(client token, decoded data) on webhook calls. */
  signatureHeaderName?: string;
  /** Scope of the messaging API a service-account assertion asks for at the token endpoint. */
  oauthScope?: string;
  /** Scope of the management API (agents, verification, launch, testers): a separate grant. */
  managementScope?: string;
  /** Key of the launch resource (`{"<productKey>": {"launchDetails": …}}`). */
  productKey?: string;
  /**
   * Domain of the agent ids in what the platform posts (`<agent>@<agentDomain>` in user messages
   * and events; the API's paths and `agentId` query take the bare id).
   */
  agentDomain?: string;
  /** Path prefix of the management API on this server (`{platform_mgmt_base}`). */
  managementPrefix?: string;
  /** Reused messageId: "ignore" (200 with the original, nothing sent again) or "conflict" (409). */
  duplicateMessageId?: 'ignore' | 'conflict';
  webhookTimeoutMs?: number;
  publicBaseUrl?: string;
  userAgent?: string;
  logger?: boolean;
  now?: () => number;
}

export interface ResolvedRbmOptions {
  signatureHeaderName: string;
  oauthScope: string;
  managementScope: string;
  productKey: string;
  agentDomain: string;
  managementPrefix: string;
  duplicateMessageId: 'ignore' | 'conflict';
  webhookTimeoutMs: number;
  publicBaseUrl: string | undefined;
  userAgent: string;
  logger: boolean;
  now: () => number;
}

export function resolveOptions(o: RbmOptions): ResolvedRbmOptions {
  return {
    signatureHeaderName: o.signatureHeaderName ?? 'X-Rbm-Signature',
    oauthScope: o.oauthScope ?? 'rbm.messaging',
    managementScope: o.managementScope ?? 'rbm.management',
    productKey: o.productKey ?? 'rbm',
    agentDomain: o.agentDomain ?? 'rbm.example',
    managementPrefix: o.managementPrefix ?? '/mgmt',
    duplicateMessageId: o.duplicateMessageId ?? 'ignore',
    webhookTimeoutMs: o.webhookTimeoutMs ?? 20_000,
    publicBaseUrl: o.publicBaseUrl,
    userAgent: o.userAgent ?? 'rbm-sandbox/1.0',
    logger: o.logger ?? false,
    now: o.now ?? Date.now,
  };
}
