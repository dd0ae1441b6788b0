import type { StagedFile } from './inbound-events.js';

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
  /** The body as received; empty when the route streamed it (`form`). */
  rawBody: Buffer;
  /** A form body the route read as a stream, for an endpoint that declares `streamedForm`. */
  form?: StreamedForm;
}

/**
 * A form body (multipart or urlencoded) read as a stream: the fields in order (repeated ones
 * too), the file parts staged on disk, and the SHA-256 of the raw bytes for body bindings.
 */
export interface StreamedForm {
  fields: Array<[string, string]>;
  files: Array<StagedFile & { field: string }>;
  bodyDigest: string;
}

/** One endpoint of a channel's own URL and the methods the platform calls it with (status reports by GET, messages by POST). */
export interface InboundEndpoint {
  name: string;
  methods: readonly InboundMethod[];
  /**
   * Form bodies (multipart, urlencoded) on this endpoint are read as a stream up to `maxBytes`
   * (the platform's own limit, above the service's body limit): files go to disk, never whole
   * into memory, and `InboundCall.form` carries them. Other bodies keep the service's limit.
   */
  streamedForm?: { maxBytes: number };
}

/** Whether a channel-scoped connector declares the endpoint for the method; anything else answers the uniform 404. */
export function declaresEndpoint(endpoints: readonly InboundEndpoint[], name: string, method: string): boolean {
  return endpoints.some((e) => e.name === name && (e.methods as readonly string[]).includes(method));
}
