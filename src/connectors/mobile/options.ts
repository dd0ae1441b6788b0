/**
 * How the mobile connector reaches the SMS provider. The signature header and the JWT issuer
 * carry the provider's brand on the real platform, so they are configuration (neutral defaults
 * matching the stand-in).
 */
export interface MobileOptions {
  /** The provider's API origin, e.g. http://127.0.0.1:9103 (`POST {apiUrl}/messages`). */
  apiUrl: string;
  timeoutMs: number;
  /** Header of the provider's signed JWT on its calls. */
  signatureHeaderName: string;
  /** The `iss` claim the provider's JWT carries. */
  jwtIssuer: string;
  /** The service's inbound URL of a channel's endpoint (`{public_url}/inbound/{channel_id}/{endpoint}`): given as each message's `reportUrl`. */
  inboundUrl(channelId: string, endpoint: string): string;
  /** The service's clock (ms): the JWT's `nbf` and `exp` are checked against it. */
  now(): number;
  /** Most pages of the provider's list of one recipient's messages a lookup by reference reads (default 100 of 100): a guard against a provider that ignores the filters. */
  lookupPages?: number;
}

/**
 * HMAC algorithms accepted on the provider's JWT: the family its SDK accepts (its reference
 * vectors hold valid HS256, HS384 and HS512 tokens); never `none`, nor a public-key algorithm the
 * provider does not use (a shared signing key must not pass as a public key).
 */
export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;

/** The provider's clock and ours may differ this much (its SDK's tolerance). */
export const CLOCK_TOLERANCE_MS = 5_000;

export const DEFAULT_SIGNATURE_HEADER = 'Smsprovider-Signature-JWT';
export const DEFAULT_JWT_ISSUER = 'Smsprovider';
