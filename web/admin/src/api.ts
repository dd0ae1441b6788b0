// The one way the app talks to the server: JSON under /admin/api with the session cookie, the
// CSRF token on every change, and errors in the specification's format turned into ApiFailure.
// Paths, bodies and answers are typed by the generated API types (api-schema.d.ts, made from
// the server's OpenAPI document by `npm run gen:api-types`).
import type { components, paths } from './api-schema';

export const API_BASE = '/admin/api';

/** One entry of the specification's `errors` array. */
export type ErrorDetail = components['schemas']['Error']['errors'][number];

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
async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A /v1 list: the array and the total from x-total-count. */
async function requestPage<T>(path: string, options: RequestOptions = {}): Promise<Page<T>> {
  const response = await send(path, options);
  const body = (await response.json()) as unknown;
  const items = (Array.isArray(body) ? body : Array.isArray((body as { data?: unknown }).data) ? (body as { data: T[] }).data : []) as T[];
  const total = Number(response.headers.get('x-total-count'));
  return { items, total: Number.isFinite(total) && response.headers.has('x-total-count') ? total : items.length };
}

/** A list answer of the /v1 API: the page and the x-total-count header. */
export interface Page<T> {
  items: T[];
  total: number;
}

/**
 * Every path the app calls, as written after /admin/api: the app's own routes, and the /v1 API's
 * again under /v1 (the document lists those relative to /v1).
 */
export type AppPaths = {
  [P in keyof paths as P extends `/admin/api${infer Rest}` ? Rest : P extends '/healthz' | '/readyz' | '/metrics' ? never : `/v1${P & string}`]: paths[P];
};
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The paths that take a method. */
export type PathsOf<M extends Method> = { [P in keyof AppPaths]: [NonNullable<AppPaths[P][M]>] extends [never] ? never : P }[keyof AppPaths];
type Operation<P extends keyof AppPaths, M extends Method> = NonNullable<AppPaths[P][M]>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
/** The successful answer's body of an operation (200, else 201, else 202; undefined for 204 alone). */
type SuccessOf<O> = O extends { responses: infer R }
  ? R extends { 200: infer A }
    ? JsonOf<A>
    : R extends { 201: infer A }
      ? JsonOf<A>
      : R extends { 202: infer A }
        ? JsonOf<A>
        : undefined
  : never;
/** What the operation of path `P` and method `M` answers. */
export type AnswerOf<P extends keyof AppPaths, M extends Method> = SuccessOf<Operation<P, M>>;
/** The JSON body the operation takes. */
export type BodyOf<P extends keyof AppPaths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type ParamsOf<O, K extends 'path' | 'query'> = O extends { parameters: { [key in K]?: infer X } } ? ([X] extends [undefined] ? never : NonNullable<X>) : never;

interface CallOptions<O> {
  /** Values of the path's `{name}` parts (encoded here). */
  params?: ParamsOf<O, 'path'>;
  query?: ParamsOf<O, 'query'> & RequestOptions['query'];
  signal?: AbortSignal;
  /** A 401 is the answer itself (sign-in, session check), not a lost session. */
  expectUnauthorized?: boolean;
}

function fill(path: string, params: unknown): string {
  const values = (params ?? {}) as Record<string, string | number>;
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(values[name])));
}

function call<P extends keyof AppPaths, M extends Method>(
  method: M,
  path: P,
  options: CallOptions<Operation<P, M>> & { body?: unknown } = {},
): Promise<AnswerOf<P, M>> {
  const { params, query, signal, expectUnauthorized, body } = options;
  return request<AnswerOf<P, M>>(fill(path, params), {
    method: method.toUpperCase() as RequestOptions['method'],
    query: query as RequestOptions['query'],
    signal,
    expectUnauthorized,
    body: body === undefined && method !== 'get' && method !== 'delete' ? {} : body,
  });
}

type Item<T> = T extends readonly (infer I)[] ? I : never;

/** The typed calls: a path as the API documents it, its `{name}` parts in `params`. */
export const api = {
  get: <P extends PathsOf<'get'>>(path: P, options?: CallOptions<Operation<P, 'get'>>) => call('get', path, options),
  post: <P extends PathsOf<'post'>>(path: P, body?: BodyOf<P, 'post'>, options?: CallOptions<Operation<P, 'post'>>) => call('post', path, { ...options, body }),
  patch: <P extends PathsOf<'patch'>>(path: P, body: BodyOf<P, 'patch'>, options?: CallOptions<Operation<P, 'patch'>>) =>
    call('patch', path, { ...options, body }),
  put: <P extends PathsOf<'put'>>(path: P, body: BodyOf<P, 'put'>, options?: CallOptions<Operation<P, 'put'>>) => call('put', path, { ...options, body }),
  delete: <P extends PathsOf<'delete'>>(path: P, options?: CallOptions<Operation<P, 'delete'>>) => call('delete', path, options).then(() => undefined),
  /** A /v1 list: its items and the total from x-total-count. */
  page: <P extends PathsOf<'get'>>(path: P, options: CallOptions<Operation<P, 'get'>> = {}) =>
    requestPage<Item<AnswerOf<P, 'get'>>>(fill(path, options.params), { query: options.query as RequestOptions['query'], signal: options.signal }),
};

/** The message to show for anything a request threw. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiFailure) return error.message;
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}
