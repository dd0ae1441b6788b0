/**
 * A browser's view of the administration API for tests: keeps the session cookie it was given
 * and sends the CSRF token on changes, like the app does. Headers can be replaced per request
 * to play a forged or cross-site request.
 */
export interface AdminResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class AdminClient {
  cookie: string | null = null;
  /** The session cookie's name as last set: `__Host-parley_session` over HTTPS. */
  cookieName = 'parley_session';
  csrf: string | null = null;
  /** The last Set-Cookie line for the session cookie, as sent. */
  lastSetCookie: string | null = null;

  constructor(
    readonly origin: string,
    /** Sent as X-Forwarded-For (servers that trust loopback proxies count the client under it). */
    readonly clientAddress?: string,
  ) {}

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string | null> = {}): Promise<AdminResponse<T>> {
    const h: Record<string, string> = {};
    if (this.cookie) h.cookie = `${this.cookieName}=${this.cookie}`;
    if (this.csrf && method !== 'GET' && method !== 'HEAD') h['x-csrf-token'] = this.csrf;
    if (this.clientAddress) h['x-forwarded-for'] = this.clientAddress;
    if (body !== undefined) h['content-type'] = 'application/json';
    for (const [k, v] of Object.entries(headers)) {
      if (v === null) delete h[k];
      else h[k] = v;
    }
    const res = await fetch(`${this.origin}${path}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const set = res.headers.getSetCookie().find((c) => /^(__Host-)?parley_session=/.test(c));
    if (set) {
      this.lastSetCookie = set;
      this.cookieName = set.slice(0, set.indexOf('='));
      const value = set.slice(this.cookieName.length + 1).split(';')[0] ?? '';
      this.cookie = value.length > 0 && !/Max-Age=0(;|$)/.test(set) ? value : null;
    }
    const csrf = (parsed as { csrf_token?: unknown } | undefined)?.csrf_token;
    if (res.ok && typeof csrf === 'string') this.csrf = csrf;
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, headers?: Record<string, string | null>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string | null>) {
    return this.request<T>('POST', path, body, headers);
  }
  delete<T = any>(path: string, headers?: Record<string, string | null>) {
    return this.request<T>('DELETE', path, undefined, headers);
  }

  signIn(email: string, password: string) {
    return this.post('/admin/api/session', { email, password });
  }

  /** A second browser of the same person: no cookie, same address. */
  fresh(clientAddress = this.clientAddress): AdminClient {
    return new AdminClient(this.origin, clientAddress);
  }
}
