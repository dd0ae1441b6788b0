import type { PlatformFailure, PlatformResult } from './connector.js';

/**
 * The HTTP calls connectors make to platforms. Every call has a deadline; a platform that does
 * not answer, cannot be reached or answers with a body that is not what it should be is a
 * failure value (retryable), never a throw.
 */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export interface HttpCall {
  method: 'GET' | 'POST' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
}

function unreachable(error: unknown, timeoutMs: number): PlatformFailure {
  const name = (error as { name?: string })?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return { ok: false, retryable: true, code: 'timeout', message: `The platform did not answer within ${timeoutMs} ms.` };
  }
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return { ok: false, retryable: true, code: 'unreachable', message: `The platform could not be reached (${detail}).` };
}

export async function httpCall(url: string, call: HttpCall, timeoutMs: number): Promise<PlatformResult<HttpAnswer>> {
  try {
    const res = await fetch(url, {
      method: call.method,
      headers: call.headers,
      body: call.body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    const text = await res.text();
    return { ok: true, value: { status: res.status, headers: res.headers, text } };
  } catch (error) {
    return unreachable(error, timeoutMs);
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
