// Options of the smsprovider stand-in. Header names and the JWT issuer carry the provider's brand on
// the real platform, so they are options with neutral defaults.

export interface SmsproviderOptions {
  /** Header with the JWT signature of webhook calls. */
  signatureHeaderName?: string;
  /** `iss` claim of that JWT. */
  jwtIssuer?: string;
  /** Also send the deprecated HMAC signature headers. Default true. */
  legacySignature?: boolean;
  legacySignatureHeaderName?: string;
  legacyTimestampHeaderName?: string;
  /** Price per message part and recipient (EUR). */
  pricePerPart?: number;
  webhookTimeoutMs?: number;
  publicBaseUrl?: string;
  userAgent?: string;
  logger?: boolean;
  now?: () => number;
}

export interface ResolvedSmsproviderOptions {
  signatureHeaderName: string;
  jwtIssuer: string;
  legacySignature: boolean;
  legacySignatureHeaderName: string;
  legacyTimestampHeaderName: string;
  pricePerPart: number;
  webhookTimeoutMs: number;
  publicBaseUrl: string | undefined;
  userAgent: string;
  logger: boolean;
  now: () => number;
}

export function resolveOptions(o: SmsproviderOptions): ResolvedSmsproviderOptions {
  return {
    signatureHeaderName: o.signatureHeaderName ?? 'Smsprovider-Signature-JWT',
    jwtIssuer: o.jwtIssuer ?? 'Smsprovider',
    legacySignature: o.legacySignature ?? true,
    legacySignatureHeaderName: o.legacySignatureHeaderName ?? 'Smsprovider-Signature',
    legacyTimestampHeaderName: o.legacyTimestampHeaderName ?? 'Smsprovider-Request-Timestamp',
    pricePerPart: o.pricePerPart ?? 0.07,
    webhookTimeoutMs: o.webhookTimeoutMs ?? 20_000,
    publicBaseUrl: o.publicBaseUrl,
    userAgent: o.userAgent ?? 'smsprovider-sandbox/1.0',
    logger: o.logger ?? false,
    now: o.now ?? Date.now,
  };
}
