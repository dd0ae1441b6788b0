import { createHmac } from 'node:crypto';
import type { PlatformFailure, PlatformResult } from '../connector.js';
import { httpCall, jsonOf } from '../http.js';
import { httpFailure } from '../http-failure.js';
import type { SocialnetChatOptions } from './options.js';

/**
 * Calls to the platform's versioned API (`{apiUrl}/{version}/{node}[/{edge}]`). Errors come back
 * in the platform's envelope `{"error": {"message", "type", "code", "error_subcode"}}` and are
 * turned into failure values: rate limits (codes 4, 17, 32, 613) as `rate_limited`, an invalid
 * token (190) as `disconnected`, transient ones (1, 2, `is_transient`, HTTP 5xx) as retryable.
 */
type Json = Record<string, unknown>;

const RATE_LIMIT_CODES = new Set([4, 17, 32, 613]);
/** Code 10 subcodes of a send outside the 24-hour window (2018278 documented; the others seen in real traffic). */
const OUTSIDE_WINDOW_SUBCODES = new Set([2018278, 2534022, 2018065]);
export const OUTSIDE_WINDOW_HINT =
  'Outside the 24-hour window the platform takes a message only with a message tag: send it again with metadata.tag (human_agent up to 7 days after the contact last wrote, or another tag that fits the message).';
const TRANSIENT_CODES = new Set([1, 2]);

export function platformFailure(status: number, body: unknown): PlatformFailure {
  const error = (body as { error?: Json } | undefined)?.error;
  if (!error || typeof error !== 'object') {
    return httpFailure({ status }, 0, { code: `http_${status}`, message: `The platform answered HTTP ${status}.` });
  }
  const code = typeof error.code === 'number' ? error.code : Number(error.code);
  const subcode = typeof error.error_subcode === 'number' ? error.error_subcode : undefined;
  const message = typeof error.message === 'string' ? error.message : `error ${code}`;
  if (RATE_LIMIT_CODES.has(code)) return { ok: false, retryable: true, code: 'rate_limited', message };
  if (code === 190) return { ok: false, retryable: false, code: 'disconnected', message: `The page is disconnected: ${message}` };
  const transient = TRANSIENT_CODES.has(code) || error.is_transient === true || status >= 500;
  const platformCode = subcode === undefined ? String(code) : `${code}/${subcode}`;
  if (code === 10 && subcode !== undefined && OUTSIDE_WINDOW_SUBCODES.has(subcode))
    return { ok: false, retryable: false, code: platformCode, message: `${message} ${OUTSIDE_WINDOW_HINT}` };
  return { ok: false, retryable: transient, code: platformCode, message };
}

/** The platform's proof that a call comes from the app: hex HMAC-SHA256(app secret, token). */
export function appSecretProof(appSecret: string, token: string): string {
  return createHmac('sha256', appSecret).update(token).digest('hex');
}

export class GraphClient {
  constructor(private readonly options: SocialnetChatOptions) {}

  private url(path: string, params: Record<string, string>, token: string | null): string {
    const url = new URL(`${this.options.apiUrl.replace(/\/+$/, '')}/${this.options.apiVersion}/${path}`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    if (token !== null) {
      url.searchParams.set('access_token', token);
      // The app token (id|secret) needs no proof; user and page tokens get one when the secret is known.
      if (this.options.appSecret && !token.includes('|')) url.searchParams.set('appsecret_proof', appSecretProof(this.options.appSecret, token));
    }
    return url.toString();
  }

  async get(path: string, params: Record<string, string>, token: string | null): Promise<PlatformResult<Json>> {
    return this.call('GET', path, params, token, undefined);
  }

  async post(path: string, body: Json, token: string, params: Record<string, string> = {}): Promise<PlatformResult<Json>> {
    return this.call('POST', path, params, token, body);
  }

  async delete(path: string, body: Json, token: string): Promise<PlatformResult<Json>> {
    return this.call('DELETE', path, {}, token, body);
  }

  private async call(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    params: Record<string, string>,
    token: string | null,
    body: Json | undefined,
  ): Promise<PlatformResult<Json>> {
    const answer = await httpCall(
      this.url(path, params, token),
      { method, platform: 'socialnet_chat', ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) },
      this.options.timeoutMs,
    );
    if (!answer.ok) return answer;
    const json = jsonOf(answer.value);
    if (answer.value.status >= 200 && answer.value.status < 300 && json !== null && typeof json === 'object') return { ok: true, value: json as Json };
    return platformFailure(answer.value.status, json);
  }
}
