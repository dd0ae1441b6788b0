import type { Clock } from '../../lib/clock.js';
import type { MediaDownloader } from '../media-download.js';

/**
 * How the rbm connector reaches the platform. Names that carry the vendor's brand on the real
 * platform (the signature header, the OAuth scopes, the product key of the management API's
 * objects) are configuration, with neutral defaults that match the stand-in.
 */
export interface RbmOptions {
  /**
   * The messaging API's origin; `{region}` in it is replaced by the channel's regional host
   * prefix (`us`, `europe`, `asia`), e.g. `https://{region}-messaging.example`.
   */
  apiUrl: string;
  /** The management API's base (agents, verification, launch, testers), without `/v1`. */
  managementUrl: string;
  /**
   * The OAuth token endpoint service-account assertions are sent to (their audience). The key's
   * own `token_uri` is not called: the service calls only the platform URLs it is configured with.
   */
  tokenUrl: string;
  messagingScope: string;
  managementScope: string;
  /** Key of the product's object in the management API (`{"<productKey>": {"launchDetails": ...}}`; the agent's is `<productKey>Agent`). */
  productKey: string;
  /** Header of the platform's webhook signature. */
  signatureHeaderName: string;
  timeoutMs: number;
  /** The service's clock: token lifetimes and assertion times. */
  clock: Clock;
  media: MediaDownloader;
  maxMediaBytes: number;
}

export const DEFAULT_SIGNATURE_HEADER = 'X-Rbm-Signature';
export const DEFAULT_MESSAGING_SCOPE = 'rbm.messaging';
export const DEFAULT_MANAGEMENT_SCOPE = 'rbm.management';
export const DEFAULT_PRODUCT_KEY = 'rbm';

/** Host prefixes of the platform's regional endpoints, by the channel's region. */
export const REGION_PREFIXES: Record<string, string> = { north_america: 'us', europe: 'europe', asia_pacific: 'asia' };
/** The management API's names of the regions an agent is hosted in. */
export const HOSTING_REGIONS: Record<string, string> = { north_america: 'NORTH_AMERICA', europe: 'EUROPE', asia_pacific: 'ASIA_PACIFIC' };

/** Media the platform hosts may be large (100 MB by URL); received files are kept up to this. */
export const RBM_MAX_MEDIA = 100 * 1024 * 1024;

/** The messaging API's base for a channel's region. */
export function regionalUrl(apiUrl: string, region: unknown): string {
  const prefix = REGION_PREFIXES[typeof region === 'string' ? region : ''] ?? REGION_PREFIXES.europe!;
  return apiUrl.replace('{region}', prefix).replace(/\/+$/, '');
}
