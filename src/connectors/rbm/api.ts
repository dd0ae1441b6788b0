import type { ChannelContext, PlatformFailure, PlatformResult } from '../connector.js';
import { httpCall, jsonOf, type HttpAnswer } from '../http.js';
import { httpFailure } from '../http-failure.js';
import type { TokenSource } from './auth.js';
import { regionalUrl, type RbmOptions } from './options.js';

/**
 * The platform's two APIs with a channel's bearer token: messaging (regional host) and
 * management (agents, launch, testers), each with its own OAuth scope. Errors are the platform's
 * JSON `{"error": {"code", "message", "status"}}`; a failure keeps the HTTP status as its code
 * (`404`, `403`, `400`) so failure-codes.ts can read it.
 */
export type RbmApiName = 'messaging' | 'management';
type Json = Record<string, unknown>;

/** A refused call as a failure value: 429 and 5xx retryable (with Retry-After), the rest permanent. */
export function platformFailure(answer: HttpAnswer, now: number): PlatformFailure {
  const error = ((jsonOf(answer) ?? {}) as { error?: Json }).error ?? {};
  const status = answer.status;
  const reason = typeof error.message === 'string' && error.message !== '' ? error.message : `HTTP ${status}`;
  const message = typeof error.status === 'string' ? `${error.status}: ${reason}` : reason;
  return httpFailure(answer, now, { message });
}

/** The platform's status name of a failure (`ALREADY_EXISTS`, `FAILED_PRECONDITION`), from its message. */
export function statusOf(failure: PlatformFailure): string {
  return /^([A-Z_]+): /.exec(failure.message)?.[1] ?? '';
}

export class RbmApi {
  constructor(
    private readonly options: RbmOptions,
    private readonly tokens: TokenSource,
  ) {}

  private scopeOf(api: RbmApiName): string {
    return api === 'messaging' ? this.options.messagingScope : this.options.managementScope;
  }

  /** The URL of a path (`/v1/...`) on one of the APIs, for the channel's region. */
  url(channel: Pick<ChannelContext, 'config'>, api: RbmApiName, path: string): string {
    const base = api === 'messaging' ? regionalUrl(this.options.apiUrl, channel.config.region) : this.options.managementUrl.replace(/\/+$/, '');
    return `${base}${path}`;
  }

  /** A call answering the parsed JSON of a 2xx, else the failure. A refused token (401) is dropped and the call is retryable. */
  async call(
    channel: Pick<ChannelContext, 'id' | 'config' | 'secrets'>,
    api: RbmApiName,
    method: 'GET' | 'POST' | 'DELETE' | 'PATCH',
    path: string,
    body?: unknown,
  ): Promise<PlatformResult<Json>> {
    const scope = this.scopeOf(api);
    const keyText = channel.secrets.service_account_key;
    const token = await this.tokens.token(channel.id, keyText, scope);
    if (!token.ok) return token;
    const headers: Record<string, string> = { authorization: `Bearer ${token.value}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const answer = await httpCall(
      this.url(channel, api, path),
      { method, headers, platform: 'rbm', ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
      this.options.timeoutMs,
    );
    if (!answer.ok) return answer;
    const status = answer.value.status;
    if (status >= 200 && status < 300) return { ok: true, value: (jsonOf(answer.value) ?? {}) as Json };
    if (status === 401) {
      this.tokens.forget(channel.id, keyText, scope);
      return { ok: false, retryable: true, code: 'unauthenticated', message: 'The platform refused the access token; a new one is obtained on the next try.' };
    }
    return platformFailure(answer.value, this.options.clock.now());
  }
}
