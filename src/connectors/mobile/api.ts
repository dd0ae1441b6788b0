import type { PlatformFailure, PlatformResult } from '../connector.js';
import { httpCall, jsonOf, retryAfterMs, type HttpAnswer } from '../http.js';
import { httpFailure } from '../http-failure.js';

/**
 * The provider's REST API: `Authorization: AccessKey <key>`, JSON bodies, errors as
 * `{"errors":[{"code","description","parameter"}]}`. Every error of a refusal is read (the
 * provider reports all of them at once; `errors[0]` alone may hide the one that matters).
 */
type Json = Record<string, unknown>;

interface ProviderError {
  code: number | null;
  description: string;
  parameter: string | null;
}

function errorsOf(body: unknown): ProviderError[] {
  const list = (body as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(list)) return [];
  return list.map((e: Json) => ({
    code: typeof e?.code === 'number' ? e.code : null,
    description: typeof e?.description === 'string' ? e.description : '',
    parameter: typeof e?.parameter === 'string' ? e.parameter : null,
  }));
}

export { retryAfterMs };

/** Provider error codes (platforms.md §5.6). */
export const SP_CODES = {
  notAllowed: 2,
  missingParams: 9,
  invalidParams: 10,
  notFound: 20,
  notEnoughBalance: 25,
  internal: 99,
} as const;

/**
 * A refused call as a failure value. Retryable: 5xx, 429 (with its Retry-After), 408, and an
 * empty balance (a top-up fixes it). Permanent: refused credentials (401, code 2), a recipient the
 * provider cannot send to (code 9 on `recipients`: `no_recipient`), other validation errors.
 */
export function providerFailure(answer: HttpAnswer, now: number): PlatformFailure {
  const errors = errorsOf(jsonOf(answer));
  const status = answer.status;
  const described = errors.map((e) => e.description).filter((d) => d !== '');
  const message = described.length > 0 ? described.join('; ') : `The provider answered HTTP ${status}.`;
  const codes = errors.map((e) => e.code);
  const failure = httpFailure(answer, now, { code: codes[0], message });
  if (failure.retryable) return failure;
  if (status === 401 || codes.includes(SP_CODES.notAllowed)) return { ...failure, code: String(SP_CODES.notAllowed) };
  if (codes.includes(SP_CODES.notEnoughBalance)) return { ...failure, retryable: true, code: String(SP_CODES.notEnoughBalance) };
  if (errors.some((e) => e.code === SP_CODES.missingParams && e.parameter === 'recipients')) return { ...failure, code: 'no_recipient' };
  return failure;
}

export class SmsApi {
  constructor(
    private readonly apiUrl: string,
    private readonly timeoutMs: number,
    private readonly now: () => number,
  ) {}

  private url(path: string): string {
    return `${this.apiUrl.replace(/\/+$/, '')}${path}`;
  }

  /** A call answering the parsed JSON of a 2xx, else the failure. */
  async call(accessKey: string, method: 'GET' | 'POST', path: string, body?: Json): Promise<PlatformResult<unknown>> {
    const headers: Record<string, string> = { authorization: `AccessKey ${accessKey}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const answer = await httpCall(
      this.url(path),
      { method, headers, platform: 'mobile', ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
      this.timeoutMs,
    );
    if (!answer.ok) return answer;
    if (answer.value.status >= 200 && answer.value.status < 300) return { ok: true, value: jsonOf(answer.value) };
    return providerFailure(answer.value, this.now());
  }
}
