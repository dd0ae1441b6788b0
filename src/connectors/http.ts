import { channel } from 'node:diagnostics_channel';
import { Agent } from 'undici';
import { CallDeadline } from '../lib/call-deadline.js';
import type { PlatformFailure, PlatformResult } from './connector.js';

// Connectors read a refusal's Retry-After with the same rule as webhook deliveries.
export { retryAfterMs } from '../lib/retry-after.js';

/**
 * The HTTP calls connectors make to platforms. Every call has a deadline; a platform that does
 * not answer, cannot be reached or answers with a body that is not what it should be is a
 * failure value (retryable), never a throw.
 */
export interface HttpAnswer {
  status: number;
  headers: { get(name: string): string | null };
  text: string;
}

export interface HttpCall {
  method: 'GET' | 'POST' | 'DELETE' | 'PATCH';
  headers?: Record<string, string>;
  body?: string;
  /** The platform called (its channel type): the label of the call in the metrics. */
  platform?: string;
}

/** One finished platform call, as published on PLATFORM_CALLS: `status` null when none answered. */
export interface PlatformCallReport {
  platform: string;
  status: number | null;
  ms: number;
}

/**
 * Platform calls are published here for whoever counts them (the runtime's metrics subscribe);
 * with no subscriber, a call pays one property read.
 */
export const PLATFORM_CALLS = channel('parley.platform-call');

/** Publishes one platform call (`started` from performance.now()); for connectors that call without httpCall. */
export function reportPlatformCall(platform: string | undefined, status: number | null, started: number): void {
  if (PLATFORM_CALLS.hasSubscribers)
    PLATFORM_CALLS.publish({ platform: platform ?? 'other', status, ms: performance.now() - started } satisfies PlatformCallReport);
}

/**
 * One keep-alive pool per platform origin for every connector: a send worker makes many calls to
 * one platform, and undici's own request path costs a fraction of fetch's per call. Platform
 * URLs come from the service's configuration, not from callers, so no address guard applies.
 */
const platforms = new Agent({ keepAliveTimeout: 10_000, connections: 128 });

/** Answer headers as undici gives them (lower-case names), read like fetch's Headers. */
function headerReader(headers: Record<string, string | string[] | undefined>): HttpAnswer['headers'] {
  return {
    get(name: string): string | null {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

function unreachable(error: unknown, timeoutMs: number, timedOut: boolean): PlatformFailure {
  if (timedOut) return { ok: false, retryable: true, code: 'timeout', message: `The platform did not answer within ${timeoutMs} ms.` };
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const own = (error as { code?: string })?.code;
  const detail = cause?.code ?? own ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return { ok: false, retryable: true, code: 'unreachable', message: `The platform could not be reached (${detail}).` };
}

/** One call with one deadline over connecting, sending and reading the whole answer. Redirects are not followed. */
export async function httpCall(url: string, call: HttpCall, timeoutMs: number): Promise<PlatformResult<HttpAnswer>> {
  const deadline = new CallDeadline(timeoutMs);
  const started = performance.now();
  try {
    const target = new URL(url);
    const res = await platforms.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: call.method,
      headers: call.headers,
      body: call.body,
      signal: deadline.signal,
    });
    const text = await res.body.text();
    reportPlatformCall(call.platform, res.statusCode, started);
    return { ok: true, value: { status: res.statusCode, headers: headerReader(res.headers), text } };
  } catch (error) {
    reportPlatformCall(call.platform, null, started);
    return unreachable(error, timeoutMs, deadline.timedOut);
  } finally {
    deadline.clear();
  }
}

/** Parses a JSON answer; anything else is reported with the HTTP status. */
export function jsonOf(answer: HttpAnswer): unknown {
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    return undefined;
  }
}

/** A file name from a URL's last path segment, when it looks like one. */
export function fileNameFromUrl(url: string, fallback: string): string {
  try {
    const last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    return /^[^/\\]{1,200}\.[A-Za-z0-9]{1,8}$/.test(last) ? last : fallback;
  } catch {
    return fallback;
  }
}

/** File name endings by content type. A Map: the content type comes from the platform, and names like `constructor` are not data. */
const EXTENSIONS = new Map<string, string>([
  ['image/png', 'png'],
  ['image/jpeg', 'jpg'],
  ['image/gif', 'gif'],
  ['image/webp', 'webp'],
  ['video/mp4', 'mp4'],
  ['audio/mpeg', 'mp3'],
  ['audio/ogg', 'ogg'],
  ['audio/mp4', 'm4a'],
  ['application/pdf', 'pdf'],
]);

/** A default file name for a content type. */
export function fileNameFor(kind: string, contentType: string): string {
  return `${kind}.${EXTENSIONS.get(contentType) ?? 'bin'}`;
}
