// HTTP calls from the stand-in to the service under test (webhooks, handshakes) and the log of them.
// Every call is recorded so tests can inspect exactly what was sent and how the service answered.

export interface OutboundResult {
  /** HTTP status the service answered, or null when no answer came (refused, timeout). */
  status: number | null;
  ok: boolean;
  body: string;
  error?: string;
  durationMs: number;
}

export interface OutboundRecord extends OutboundResult {
  id: number;
  method: 'GET' | 'POST';
  url: string;
  requestHeaders: Record<string, string>;
  requestBody: string;
  /** Exact bytes when the body was binary (multipart with files). */
  requestBodyBytes?: Buffer;
  /** What caused the call (e.g. "message", "delivery", "handshake"). */
  kind: string;
  at: number;
}

export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Binary body (e.g. multipart with files); takes precedence over `body`. */
  bodyBytes?: Buffer;
  kind: string;
  timeoutMs: number;
}

/** Reads at most `limit` bytes of a response body, so a misbehaving receiver cannot exhaust memory. */
async function readLimited(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.length > limit) {
      chunks.push(value.subarray(0, limit - total));
      await reader.cancel();
      break;
    }
    chunks.push(value);
    total += value.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class OutboundLog {
  readonly records: OutboundRecord[] = [];
  private nextId = 1;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly userAgent: string,
    private readonly maxRecords = 1000,
  ) {}

  async send(req: OutboundRequest): Promise<OutboundRecord> {
    const p = this.perform(req);
    this.inFlight.add(p);
    try {
      return await p;
    } finally {
      this.inFlight.delete(p);
    }
  }

  /** Fire without awaiting (platform-initiated side effects such as echoes); `settle()` waits for them. */
  dispatch(task: () => Promise<unknown>): void {
    const p = (async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      await task();
    })().catch(() => undefined);
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  /** Waits until no outbound call or dispatched task is running (bounded number of rounds). */
  async settle(): Promise<void> {
    for (let round = 0; round < 50 && this.inFlight.size > 0; round++) {
      await Promise.allSettled([...this.inFlight]);
    }
  }

  /** Sends a recorded call again unchanged: same method, URL, headers and body bytes (what a platform retry does). */
  resend(record: OutboundRecord, timeoutMs: number): Promise<OutboundRecord> {
    return this.send({
      method: record.method,
      url: record.url,
      kind: record.kind,
      headers: record.requestHeaders,
      timeoutMs,
      ...(record.requestBodyBytes ? { bodyBytes: record.requestBodyBytes } : { body: record.requestBody }),
    });
  }

  get(id: number): OutboundRecord | undefined {
    return this.records.find((r) => r.id === id);
  }

  clear(): void {
    this.records.length = 0;
  }

  private async perform(req: OutboundRequest): Promise<OutboundRecord> {
    const headers: Record<string, string> = { 'user-agent': this.userAgent, ...(req.headers ?? {}) };
    const started = Date.now();
    const record: OutboundRecord = {
      id: this.nextId++,
      method: req.method,
      url: req.url,
      requestHeaders: headers,
      requestBody: req.body ?? req.bodyBytes?.toString('utf8') ?? '',
      kind: req.kind,
      at: started,
      status: null,
      ok: false,
      body: '',
      durationMs: 0,
    };
    if (req.bodyBytes) record.requestBodyBytes = req.bodyBytes;
    try {
      const init: RequestInit = { method: req.method, headers, signal: AbortSignal.timeout(req.timeoutMs) };
      if (req.method === 'POST') init.body = req.bodyBytes ? Uint8Array.from(req.bodyBytes) : (req.body ?? '');
      const res = await fetch(req.url, init);
      record.status = res.status;
      record.ok = res.status >= 200 && res.status < 300;
      record.body = await readLimited(res, 64 * 1024);
    } catch (err) {
      record.error = describeError(err);
    }
    record.durationMs = Date.now() - started;
    this.records.push(record);
    if (this.records.length > this.maxRecords) this.records.splice(0, this.records.length - this.maxRecords);
    return record;
  }
}

export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    if (err.name === 'TimeoutError') return 'timeout';
    if (cause instanceof Error) return `${err.message}: ${cause.message}`;
    return err.message;
  }
  return String(err);
}

/** Compact view of an outbound record for control API answers. */
export function summarize(record: OutboundRecord): {
  delivery_id: number;
  status: number | null;
  ok: boolean;
  body: string;
  error?: string;
  duration_ms: number;
} {
  const out: { delivery_id: number; status: number | null; ok: boolean; body: string; error?: string; duration_ms: number } = {
    delivery_id: record.id,
    status: record.status,
    ok: record.ok,
    body: record.body,
    duration_ms: record.durationMs,
  };
  if (record.error !== undefined) out.error = record.error;
  return out;
}
