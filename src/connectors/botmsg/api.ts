import type { PlatformFailure, PlatformResult } from '../connector.js';
import { httpCall, jsonOf } from '../http.js';
import { httpFailure } from '../http-failure.js';

/**
 * Bot API calls: `POST {apiUrl}/bot<token>/<method>` with a JSON body; answers are
 * `{"ok": true, "result": ...}` or `{"ok": false, "error_code", "description", "parameters"?}`.
 * 429 is `rate_limited` (its `retry_after` kept as `retryAfterMs`), 408, 5xx and network failures are retryable, the rest
 * are refusals carrying the platform's description.
 */
/** The failure code of `400 Bad Request: chat not found`. */
export const CHAT_NOT_FOUND = 'chat_not_found';

export function botFailure(status: number, body: unknown): PlatformFailure {
  const b = (body ?? {}) as { error_code?: unknown; description?: unknown; parameters?: { retry_after?: unknown } };
  const code = typeof b.error_code === 'number' ? b.error_code : status;
  const description = typeof b.description === 'string' ? b.description : `The platform answered HTTP ${status}.`;
  // 400 covers every refusal of a request; an unknown chat (a user who never wrote, a wrong id)
  // is only told apart by the documented description.
  if (code === 400 && /chat not found/i.test(description)) return { ok: false, retryable: false, code: CHAT_NOT_FOUND, message: description };
  // The wait of a 429 comes in the body (`parameters.retry_after`, seconds), and the body's code is the status.
  const seconds = typeof b.parameters?.retry_after === 'number' && b.parameters.retry_after >= 0 ? b.parameters.retry_after : undefined;
  if (code !== 429) return httpFailure({ status: code }, 0, { message: description });
  const after = seconds === undefined ? '' : ` (retry after ${seconds} s)`;
  return httpFailure({ status: code }, 0, { message: `${description}${after}`, ...(seconds === undefined ? {} : { retryAfterMs: seconds * 1000 }) });
}

export class BotApi {
  constructor(
    private readonly apiUrl: string,
    private readonly timeoutMs: number,
  ) {}

  methodUrl(token: string, method: string): string {
    return `${this.apiUrl.replace(/\/+$/, '')}/bot${token}/${method}`;
  }

  fileUrl(token: string, filePath: string): string {
    return `${this.apiUrl.replace(/\/+$/, '')}/file/bot${token}/${filePath.split('/').map(encodeURIComponent).join('/')}`;
  }

  async call(token: string, method: string, params: Record<string, unknown> = {}): Promise<PlatformResult<unknown>> {
    const answer = await httpCall(
      this.methodUrl(token, method),
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params), platform: 'botmsg' },
      this.timeoutMs,
    );
    if (!answer.ok) return answer;
    const json = jsonOf(answer.value) as { ok?: unknown; result?: unknown } | undefined;
    if (answer.value.status === 200 && json?.ok === true) return { ok: true, value: json.result };
    return botFailure(answer.value.status, json);
  }
}
