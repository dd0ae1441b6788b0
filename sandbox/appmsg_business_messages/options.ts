// Options of the appmsg_business_messages stand-in. The real path segment is the product name plus
// "srvc"; here it is an option with a neutral default.

export interface AppmsgBusinessOptions {
  /** First path segment: `POST /<pathSegment>/1/send_message`. */
  pathSegment?: string;
  /** Header of the sandbox's own callback signature (the real callback format is not public). */
  callbackSignatureHeaderName?: string;
  webhookTimeoutMs?: number;
  publicBaseUrl?: string;
  userAgent?: string;
  logger?: boolean;
  now?: () => number;
}

export interface ResolvedAppmsgBusinessOptions {
  pathSegment: string;
  callbackSignatureHeaderName: string;
  webhookTimeoutMs: number;
  publicBaseUrl: string | undefined;
  userAgent: string;
  logger: boolean;
  now: () => number;
}

export function resolveOptions(o: AppmsgBusinessOptions): ResolvedAppmsgBusinessOptions {
  return {
    pathSegment: o.pathSegment ?? 'appmsgsrvc',
    callbackSignatureHeaderName: o.callbackSignatureHeaderName ?? 'X-Sandbox-Signature',
    webhookTimeoutMs: o.webhookTimeoutMs ?? 20_000,
    publicBaseUrl: o.publicBaseUrl,
    userAgent: o.userAgent ?? 'appmsg-business-sandbox/1.0',
    logger: o.logger ?? false,
    now: o.now ?? Date.now,
  };
}
