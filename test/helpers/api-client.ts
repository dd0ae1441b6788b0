/**
 * A small HTTP client for API tests: over real sockets by default, or through a transport that
 * hands the request to the app in the same process (Fastify's inject, see startTestApp).
 */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** One request as the client sends it, and the answer as it reads it. */
export type ApiTransport = (request: {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload: string | undefined;
}) => Promise<{ status: number; headers: Headers; text: string }>;

/** The default transport: fetch over a real connection to `url` (an absolute URL). */
const overHttp: ApiTransport = async ({ method, url, headers, payload }) => {
  const res = await fetch(url, { method, headers, body: payload });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

export class ApiClient {
  constructor(
    readonly origin: string,
    readonly token: string | null,
    private readonly transport: ApiTransport = overHttp,
  ) {}

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const h: Record<string, string> = { ...headers };
    if (this.token && !('authorization' in h)) h.authorization = `Bearer ${this.token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const url = `${this.origin}${path.startsWith('/v1') || path.startsWith('/') ? path : `/v1/${path}`}`;
    const res = await this.transport({ method, url, headers: h, payload });
    const text = res.text;
    let parsed: unknown = undefined;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }
  patch<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, body, headers);
  }
  delete<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, undefined, headers);
  }
}
