import type { PlatformFailure, PlatformResult } from '../connector.js';
import { reportPlatformCall } from '../http.js';
import { httpFailure } from '../http-failure.js';

/**
 * The provider's `/v3` API: HTTP Basic auth (user `api`, the private API key), form bodies
 * (multipart when files go along), JSON answers; errors as `{"message": "..."}`, a refused key as
 * the plain text `Forbidden`.
 */
export interface FormFile {
  field: string;
  name: string;
  mimeType: string;
  bytes: Uint8Array;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** `try again after <RFC 1123 date>` in a 429's message, else a Retry-After header, as ms from now. */
export function retryAfterOf(message: string, header: string | null, now: number): number | undefined {
  const dated = /try again after (.+?)\.?$/i.exec(message)?.[1];
  const at = dated ? Date.parse(dated) : NaN;
  if (!Number.isNaN(at)) return Math.max(0, at - now);
  if (header && /^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const headerAt = header ? Date.parse(header) : NaN;
  return Number.isNaN(headerAt) ? undefined : Math.max(0, headerAt - now);
}

/** A refused call as a failure value: 5xx, 408 and 429 may pass; 401/403 refuse the key; others refuse the request. */
function failureOf(status: number, text: string, retryAfter: string | null, now: number): PlatformFailure {
  let message = text.trim();
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed?.message === 'string') message = parsed.message;
  } catch {
    // The plain text answer is the message.
  }
  if (message === '') message = `The provider answered HTTP ${status}.`;
  const after = status === 429 ? retryAfterOf(message, retryAfter, now) : undefined;
  return httpFailure({ status }, now, { message, ...(after === undefined ? {} : { retryAfterMs: after }) });
}

export class MailApi {
  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number,
  ) {}

  async call(
    baseUrl: string,
    apiKey: string,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    fields?: ReadonlyArray<readonly [string, string]>,
    files: readonly FormFile[] = [],
  ): Promise<PlatformResult<ApiAnswer>> {
    const headers: Record<string, string> = {
      authorization: `Basic ${Buffer.from(`api:${apiKey}`).toString('base64')}`,
      accept: 'application/json',
    };
    let body: string | FormData | undefined;
    if (files.length > 0) {
      const form = new FormData();
      for (const [k, v] of fields ?? []) form.append(k, v);
      for (const f of files) form.append(f.field, new Blob([new Uint8Array(f.bytes)], { type: f.mimeType }), f.name);
      body = form;
    } else if (fields !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(fields.map(([k, v]) => [k, v])).toString();
    }
    let res: Response;
    let text: string;
    const started = performance.now();
    try {
      res = await fetch(`${baseUrl.replace(/\/+$/, '')}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
      reportPlatformCall('email', res.status, started);
    } catch (error) {
      reportPlatformCall('email', null, started);
      const name = (error as { name?: string })?.name;
      if (name === 'TimeoutError' || name === 'AbortError')
        return { ok: false, retryable: true, code: 'timeout', message: `The provider did not answer within ${this.timeoutMs} ms.` };
      const cause = (error as { cause?: { code?: string } })?.cause?.code;
      return { ok: false, retryable: true, code: 'unreachable', message: `The provider could not be reached (${cause ?? String(error)}).` };
    }
    if (res.status < 200 || res.status >= 300) return failureOf(res.status, text, res.headers.get('retry-after'), this.now());
    let parsed: unknown;
    try {
      parsed = text === '' ? null : (JSON.parse(text) as unknown);
    } catch {
      return { ok: false, retryable: true, code: 'bad_answer', message: `The provider answered HTTP ${res.status} without JSON.` };
    }
    return { ok: true, value: { status: res.status, body: parsed } };
  }
}
