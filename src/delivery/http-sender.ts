import { Agent, type Dispatcher } from 'undici';
import { CallDeadline } from '../lib/call-deadline.js';
import { retryAfterMs } from '../lib/retry-after.js';
import { AddressRefusedError, guardedConnector, literalRefusal, type Resolver } from '../lib/address-guard.js';

export interface SendInput {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  sslVerification: boolean;
}

export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  /** The start of the receiver's answer (at most `excerptBytes`), or null when it sent none. */
  responseExcerpt: string | null;
  error: string | null;
  /** Cut off by abortAll() (shutdown) rather than by the receiver or the network. */
  aborted: boolean;
  /** A refusal's Retry-After, in ms from the answer. */
  retryAfterMs?: number;
}

export interface SenderOptions {
  /** WEBHOOK_ALLOWLIST: hosts, addresses and CIDR ranges (optionally with a port) the address guard lets through. */
  allowlist: readonly string[];
  /** The whole call, connect to last byte read, must end within this. */
  timeoutMs: number;
  excerptBytes?: number;
  userAgent?: string;
  /** Replaces DNS resolution (tests). */
  resolve?: Resolver;
}

export const DEFAULT_EXCERPT_BYTES = 4096;

interface Destination {
  origin: string;
  path: string;
  /** Why the URL cannot be called at all, checked once per URL. */
  refusal: string | null;
}

const MAX_CACHED_URLS = 10_000;

/**
 * Sends one webhook call over undici. Two connection pools: one that verifies the receiver's TLS
 * certificate and one for webhooks set to `ssl_verification: false`. Both resolve names through
 * the address guard. Keep-alive connections are reused between calls to the same receiver.
 */
export class WebhookSender {
  private readonly verifying: Agent;
  private readonly lenient: Agent;
  private readonly excerptBytes: number;
  private readonly destinations = new Map<string, Destination>();
  private readonly active = new Set<CallDeadline>();
  private aborting = false;
  readonly userAgent: string;

  constructor(private readonly options: SenderOptions) {
    const guard = {
      allowlist: options.allowlist,
      setting: 'WEBHOOK_ALLOWLIST',
      ...(options.resolve ? { resolve: options.resolve } : {}),
      timeoutMs: Math.min(options.timeoutMs, 30_000),
    };
    const common = { keepAliveTimeout: 10_000, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs };
    this.verifying = new Agent({ ...common, connect: guardedConnector({ ...guard, rejectUnauthorized: true }) });
    this.lenient = new Agent({ ...common, connect: guardedConnector({ ...guard, rejectUnauthorized: false }) });
    this.excerptBytes = options.excerptBytes ?? DEFAULT_EXCERPT_BYTES;
    this.userAgent = options.userAgent ?? 'Parley-Webhooks/1.0';
  }

  private destination(url: string): Destination {
    let d = this.destinations.get(url);
    if (!d) {
      let parsed: URL | null = null;
      try {
        parsed = new URL(url);
      } catch {
        parsed = null;
      }
      if (!parsed) d = { origin: '', path: '', refusal: 'The webhook URL is not a valid URL.' };
      else if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        d = { origin: '', path: '', refusal: 'The webhook URL is not an http or https URL.' };
      else d = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, refusal: literalRefusal(parsed, this.options.allowlist) };
      if (this.destinations.size >= MAX_CACHED_URLS) this.destinations.clear();
      this.destinations.set(url, d);
    }
    return d;
  }

  async send(input: SendInput): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = this.destination(input.url);
    if (target.refusal) return { statusCode: null, durationMs: 0, responseExcerpt: null, error: target.refusal, aborted: false };

    // One deadline for the whole call: connect, send, and the answer up to the excerpt.
    const deadline = new CallDeadline(this.options.timeoutMs);
    this.active.add(deadline);
    const dispatcher: Dispatcher = input.sslVerification ? this.verifying : this.lenient;
    let statusCode: number | null = null;
    try {
      const response = await dispatcher.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: input.headers,
        body: input.body,
        signal: deadline.signal,
      });
      statusCode = response.statusCode;
      const excerpt = await readExcerpt(response.body, this.excerptBytes);
      const result: SendResult = { statusCode, durationMs: elapsed(), responseExcerpt: excerpt, error: null, aborted: false };
      if (statusCode < 200 || statusCode >= 300) {
        const header = response.headers['retry-after'];
        const after = retryAfterMs(Array.isArray(header) ? header[0] : header, Date.now());
        if (after !== undefined) result.retryAfterMs = after;
      }
      return result;
    } catch (error) {
      const aborted = this.aborting && !deadline.timedOut;
      const message = deadline.timedOut ? `Timeout: no complete answer within ${this.options.timeoutMs} ms.` : describe(error);
      return { statusCode, durationMs: elapsed(), responseExcerpt: null, error: message, aborted };
    } finally {
      deadline.clear();
      this.active.delete(deadline);
    }
  }

  /** Cuts off every call in flight (shutdown); their results say `aborted`. */
  abortAll(): void {
    this.aborting = true;
    for (const deadline of this.active) deadline.cancel();
  }

  /** Ends every connection at once (after the worker stopped sending). */
  async close(): Promise<void> {
    await Promise.all([this.verifying.destroy(), this.lenient.destroy()]);
  }
}

/**
 * Reads up to `limit` bytes of the answer and lets the rest go. Plain stream events, not an async
 * iterator: the iterator's machinery cost more than the whole read of a short answer.
 */
function readExcerpt(body: Dispatcher.ResponseData['body'], limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (): void => {
      body.off('data', onData);
      body.off('end', finish);
      resolve(size === 0 ? null : Buffer.concat(chunks, size).subarray(0, limit).toString('utf8'));
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size < limit) return;
      // Enough: the rest is not read, and the connection is not kept for it.
      body.destroy();
      finish();
    };
    body.on('data', onData);
    body.on('end', finish);
    // A deadline or a broken connection ends the read with the call's error (the caller's catch).
    body.once('error', reject);
  });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof AddressRefusedError) return error.message;
  const withCode = error as Error & { code?: string; cause?: { code?: string; message?: string } };
  const code = withCode.code ?? withCode.cause?.code;
  const message = withCode.cause?.message && withCode.message === 'fetch failed' ? withCode.cause.message : withCode.message;
  if (code && !message.includes(code)) return `${code}: ${message}`;
  return message;
}
