import { Agent, type Dispatcher } from 'undici';
import { AddressRefusedError, guardedConnector, literalRefusal, portOf, type Resolver } from '../lib/address-guard.js';
import type { PlatformResult } from './connector.js';

/**
 * Downloads of files named in platform payloads (attachments, profile pictures). The URL comes
 * from outside and the bytes end up in the public file store, so every hop goes through the SSRF
 * guard of webhook calls (checked after DNS, connection pinned to the checked address), redirects
 * are followed by hand with each target checked, and the size cap is enforced while the body
 * streams in.
 */
export interface Downloaded {
  bytes: Uint8Array;
  contentType: string;
}

export interface MediaDownloaderOptions {
  /** MEDIA_ALLOWLIST plus the platforms' own base URLs (host:port): what may be private. */
  allowlist: readonly string[];
  /** Redirects followed at most (each target checked like the first URL). */
  maxRedirects?: number;
  /** Replaces DNS resolution (tests). */
  resolve?: Resolver;
}

export const DEFAULT_MAX_REDIRECTS = 3;
const SETTING = 'MEDIA_ALLOWLIST';

function failure(code: string, message: string, retryable = false): PlatformResult<never> {
  return { ok: false, retryable, code, message };
}

interface Deadline {
  timedOut: boolean;
  timeoutMs: number;
}

function unreachable(error: unknown, deadline: Deadline): PlatformResult<never> {
  if (error instanceof AddressRefusedError) return failure('address_refused', error.message);
  if (deadline.timedOut) return failure('timeout', `The platform did not answer within ${deadline.timeoutMs} ms.`, true);
  const e = error as { code?: string; message?: string } | undefined;
  return failure('unreachable', `The file could not be downloaded (${e?.code ?? e?.message ?? String(error)}).`, true);
}

/** Reads and drops a short answer (a redirect, an error page), so its connection can be reused. */
async function drain(body: Dispatcher.ResponseData['body']): Promise<void> {
  await body.dump({ limit: 64 * 1024 }).catch(() => undefined);
}

/** Stops reading an answer that is too large: its connection is closed. */
function cut(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

export class MediaDownloader {
  private readonly agent: Agent;
  private readonly maxRedirects: number;

  constructor(private readonly options: MediaDownloaderOptions) {
    this.maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    const connect = guardedConnector({
      allowlist: options.allowlist,
      setting: SETTING,
      ...(options.resolve ? { resolve: options.resolve } : {}),
      rejectUnauthorized: true,
      timeoutMs: 10_000,
    });
    this.agent = new Agent({ connect, keepAliveTimeout: 4_000 });
  }

  /** GETs `url` within `timeoutMs` (all hops together) and at most `maxBytes` of body. */
  async download(url: string, timeoutMs: number, maxBytes: number, headers: Record<string, string> = {}): Promise<PlatformResult<Downloaded>> {
    return this.withDeadline(timeoutMs, async (signal, deadline) => {
      const res = await this.follow(url, 'GET', headers, signal, deadline);
      if (!res.ok) return res;
      return await this.readBody(res.value, maxBytes, deadline);
    });
  }

  /**
   * The size of the file at `url` in bytes, without downloading it: a `HEAD` request's
   * `Content-Length`; where a server answers HEAD without one (or refuses HEAD), a ranged `GET` of
   * the first byte (`Content-Range: bytes 0-0/<size>`, or the `Content-Length` of a server that
   * ignores ranges, whose body is then not read). `unknown_size` when neither tells.
   */
  async sizeOf(url: string, timeoutMs: number): Promise<PlatformResult<number>> {
    return this.withDeadline(timeoutMs, async (signal, deadline) => {
      const head = await this.follow(url, 'HEAD', {}, signal, deadline);
      if (head.ok) {
        await drain(head.value.body);
        const length = sizeHeader(head.value.headers['content-length']);
        if (length !== null) return { ok: true, value: length };
      } else if (!['405', '501', '403'].includes(head.code)) {
        return head;
      }
      const ranged = await this.follow(url, 'GET', { range: 'bytes=0-0' }, signal, deadline);
      if (!ranged.ok) return ranged;
      const res = ranged.value;
      const total = res.statusCode === 206 ? rangeTotal(res.headers['content-range']) : sizeHeader(res.headers['content-length']);
      cut(res.body);
      if (total === null) return failure('unknown_size', 'The file server tells neither the length of the file nor the total of a range.');
      return { ok: true, value: total };
    });
  }

  private async withDeadline<T>(timeoutMs: number, run: (signal: AbortSignal, deadline: Deadline) => Promise<PlatformResult<T>>): Promise<PlatformResult<T>> {
    const controller = new AbortController();
    const deadline = { timedOut: false, timeoutMs };
    const timer = setTimeout(() => {
      deadline.timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      return await run(controller.signal, deadline);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends `method` to `url`, following redirects (each target checked); answers the final 2xx response with its body unread. */
  private async follow(
    url: string,
    method: 'GET' | 'HEAD',
    headers: Record<string, string>,
    signal: AbortSignal,
    deadline: Deadline,
  ): Promise<PlatformResult<Dispatcher.ResponseData>> {
    let current = url;
    let sendHeaders = headers;
    for (let hop = 0; ; hop++) {
      let target: URL;
      try {
        target = new URL(current);
      } catch {
        return failure('bad_url', 'The file URL is not a valid URL.');
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:') return failure('bad_url', 'The file URL is not an http or https URL.');
      const refused = literalRefusal(target, this.options.allowlist, SETTING);
      if (refused) return failure('address_refused', refused);
      let res: Dispatcher.ResponseData;
      try {
        res = await this.agent.request({
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method,
          headers: sendHeaders,
          signal,
        });
      } catch (error) {
        return unreachable(error, deadline);
      }
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        await drain(res.body);
        if (hop >= this.maxRedirects) return failure('too_many_redirects', `The file URL redirected more than ${this.maxRedirects} times.`);
        const next = new URL(location, target);
        // Credentials meant for the platform do not follow a redirect to another origin.
        if (next.origin !== target.origin) sendHeaders = headers.range === undefined ? {} : { range: headers.range };
        current = next.toString();
        continue;
      }
      if (res.statusCode < 200 || res.statusCode >= 300) {
        await drain(res.body);
        return failure(String(res.statusCode), `Downloading the file failed with HTTP ${res.statusCode}.`, res.statusCode >= 500 || res.statusCode === 429);
      }
      return { ok: true, value: res };
    }
  }

  private async readBody(res: Dispatcher.ResponseData, maxBytes: number, deadline: Deadline): Promise<PlatformResult<Downloaded>> {
    const tooLarge = () => failure('too_large', `The file is larger than ${maxBytes} bytes.`);
    const declared = Number(res.headers['content-length'] ?? '0');
    if (declared > maxBytes) {
      cut(res.body);
      return tooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) {
          cut(res.body);
          return tooLarge();
        }
        chunks.push(chunk);
      }
    } catch (error) {
      return unreachable(error, deadline);
    }
    const type = res.headers['content-type'];
    const contentType = (typeof type === 'string' ? type : 'application/octet-stream').split(';')[0]!.trim() || 'application/octet-stream';
    return { ok: true, value: { bytes: Buffer.concat(chunks, size), contentType } };
  }
}

function sizeHeader(value: string | string[] | undefined): number | null {
  return typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : null;
}

/** The total of `Content-Range: bytes 0-0/<total>` (null when it is `*` or missing). */
function rangeTotal(value: string | string[] | undefined): number | null {
  const match = typeof value === 'string' ? /^bytes\s+\d+-\d+\/(\d+)\s*$/i.exec(value) : null;
  return match ? Number(match[1]) : null;
}

/** The `host:port` of a base URL, as an allowlist entry that opens exactly that service. */
export function allowlistEntryOf(baseUrl: string): string | null {
  try {
    const url = new URL(baseUrl);
    return `${url.hostname}:${portOf(url)}`;
  } catch {
    return null;
  }
}
