/** The HTTP methods a platform calls the service with. */
export type InboundMethod = 'GET' | 'POST';

/**
 * One call a platform made to the service, as received. Signatures are checked on `rawBody`
 * (body signatures) or on `url` (platforms that sign the URL they called, query included).
 */
export interface InboundCall {
  method: string;
  /** For a channel's own URL: the last path segment (`/v1/inbound/{channel_id}/{endpoint}`); null on an app's URL. */
  endpoint: string | null;
  /**
   * The full URL the platform called, as received: the service's public address with the path
   * and query exactly as they arrived (nothing decoded or re-encoded), so a hash of it matches
   * the platform's.
   */
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** Decoded query parameters (the last of repeated ones). */
  query: Record<string, string | undefined>;
  rawBody: Buffer;
}

/** One endpoint of a channel's own URL and the methods the platform calls it with (status reports by GET, messages by POST). */
export interface InboundEndpoint {
  name: string;
  methods: readonly InboundMethod[];
}

/** Whether a channel-scoped connector declares the endpoint for the method; anything else answers the uniform 404. */
export function declaresEndpoint(endpoints: readonly InboundEndpoint[], name: string, method: string): boolean {
  return endpoints.some((e) => e.name === name && (e.methods as readonly string[]).includes(method));
}
