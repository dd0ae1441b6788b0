// The one way the app talks to the server: JSON under /admin/api with the session cookie, the
// CSRF token on every change, and errors in the specification's format turned into ApiFailure.
import type { Page } from './types';

export const API_BASE = '/admin/api';

/** One entry of the specification's `errors` array. */
export interface ErrorDetail {
  message: string;
  field?: string;
  rejected_value?: unknown;
}

/** A request the server refused (or could not be reached: status 0). */
export class ApiFailure extends Error {
  readonly status: number;
  /** The HTTP status code as the error body names it (`status.code`). */
  readonly code: string;
  /** The field the first validation error names, if any. */
  readonly field: string | undefined;
  readonly errors: ErrorDetail[];
  /** Seconds to wait, from Retry-After (429). */
  readonly retryAfter: number | undefined;

  constructor(status: number, code: string, errors: ErrorDetail[], retryAfter?: number) {
    super(errors[0]?.message ?? `Request failed (${status}).`);
    this.name = 'ApiFailure';
    this.status = status;
    this.code = code;
    this.errors = errors;
    this.field = errors.find((e) => e.field !== undefined)?.field;
    this.retryAfter = retryAfter;
  }

  /** The message of the error naming `field` (exactly, or a path below it). */
  messageFor(field: string): string | undefined {
    return this.errors.find((e) => e.field === field || (e.field !== undefined && e.field.startsWith(`${field}.`)))?.message;
  }
}

let csrfToken: string | null = null;
let onUnauthorized: (() => void) | null = null;
/** Counts sessions: a 401 of a request sent under an earlier one says nothing of the session now. */
let sessionGeneration = 0;

/** Set by the session provider after sign-in (and cleared on sign-out). */
export function setCsrfToken(token: string | null): void {
  if (token !== csrfToken) sessionGeneration += 1;
  csrfToken = token;
}

/** What happens on a 401 of a signed-in request: the session provider sends the user to sign-in. */
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  onUnauthorized = handler;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  /** A 401 is the answer itself (sign-in, session check), not a lost session. */
  expectUnauthorized?: boolean;
  signal?: AbortSignal;
}

function urlOf(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') params.set(key, String(value));
  const search = params.toString();
  return `${API_BASE}${path}${search ? `?${search}` : ''}`;
}

async function failureOf(response: Response): Promise<ApiFailure> {
  let errors: ErrorDetail[] = [];
  let code = String(response.status);
  try {
    const body = (await response.json()) as { status?: { code?: unknown }; errors?: unknown; error?: { message?: unknown } };
    if (typeof body.status?.code === 'string') code = body.status.code;
    if (Array.isArray(body.errors)) {
      errors = body.errors
        .filter((e): e is ErrorDetail => typeof e === 'object' && e !== null && typeof (e as ErrorDetail).message === 'string')
        .map((e) => ({ ...e }));
    } else if (typeof body.error?.message === 'string') {
      errors = [{ message: body.error.message }];
    }
  } catch {
    // Not JSON (a proxy's page): the status alone tells it.
  }
  if (errors.length === 0) errors = [{ message: response.status >= 500 ? 'The server could not do that just now.' : `Request failed (${response.status}).` }];
  const retry = Number(response.headers.get('retry-after'));
  return new ApiFailure(response.status, code, errors, Number.isFinite(retry) && retry > 0 ? retry : undefined);
}

async function send(path: string, options: RequestOptions): Promise<Response> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const generation = sessionGeneration;
  let response: Response;
  try {
    response = await fetch(urlOf(path, options.query), {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiFailure(0, '0', [{ message: 'The server cannot be reached. Check your connection and try again.' }]);
  }
  if (!response.ok) {
    const failure = await failureOf(response);
    // A late 401 of the session that ended must not send a user who signed in again meanwhile back to sign-in.
    if (response.status === 401 && !options.expectUnauthorized && generation === sessionGeneration) onUnauthorized?.();
    throw failure;
  }
  return response;
}

/** A JSON request; resolves to the parsed body (undefined for 204). */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A /v1 list: the array and the total from x-total-count. */
export async function requestPage<T>(path: string, options: RequestOptions = {}): Promise<Page<T>> {
  const response = await send(path, options);
  const body = (await response.json()) as unknown;
  const items = (Array.isArray(body) ? body : Array.isArray((body as { data?: unknown }).data) ? (body as { data: T[] }).data : []) as T[];
  const total = Number(response.headers.get('x-total-count'));
  return { items, total: Number.isFinite(total) && response.headers.has('x-total-count') ? total : items.length };
}

/** Short forms for the common verbs. */
export const api = {
  get: <T>(path: string, query?: RequestOptions['query'], signal?: AbortSignal) => request<T>(path, { query, signal }),
  post: <T>(path: string, body?: unknown) => request<T>(path, { method: 'POST', body: body ?? {} }),
  patch: <T>(path: string, body: unknown) => request<T>(path, { method: 'PATCH', body }),
  put: <T>(path: string, body: unknown) => request<T>(path, { method: 'PUT', body }),
  delete: (path: string) => request<void>(path, { method: 'DELETE' }),
  page: <T>(path: string, query?: RequestOptions['query'], signal?: AbortSignal) => requestPage<T>(path, { query, signal }),
};

/** The message to show for anything a request threw. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiFailure) return error.message;
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}
