// Small JSON-over-HTTP helpers for the sandbox tests (real HTTP with fetch).

export interface JsonResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = Record<string, unknown>>(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse<T>> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(url, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    // keep text
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

export const get = <T = Record<string, unknown>>(url: string, headers?: Record<string, string>): Promise<JsonResponse<T>> =>
  call<T>('GET', url, undefined, headers);
export const post = <T = Record<string, unknown>>(url: string, body?: unknown, headers?: Record<string, string>): Promise<JsonResponse<T>> =>
  call<T>('POST', url, body ?? {}, headers);

/** Reads a nested property path from an unknown JSON value (tests only). */
export function at(value: unknown, ...path: Array<string | number>): unknown {
  let cur: unknown = value;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return cur;
}
