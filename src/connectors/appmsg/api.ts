import type { PlatformFailure, PlatformResult } from '../connector.js';
import { httpCall } from '../http.js';

/**
 * The bot API: `POST {apiUrl}/pa/<endpoint>` with JSON and the bot's token in a header. The
 * platform answers HTTP 200 with `status` (0 = ok) and `status_message`; another HTTP status, a
 * network failure or a body that is not JSON is the platform being down (retryable).
 */
export type Json = Record<string, unknown>;

/** The platform's status codes (platforms.md §3.4) the service tells apart. */
export const STATUS = {
  invalidUrl: 1,
  invalidAuthToken: 2,
  badData: 3,
  missingData: 4,
  receiverNotRegistered: 5,
  receiverNotSubscribed: 6,
  publicAccountBlocked: 7,
  publicAccountNotFound: 8,
  publicAccountSuspended: 9,
  webhookNotSet: 10,
  receiverNoSuitableDevice: 11,
  tooManyRequests: 12,
} as const;

/** What each status means to a client, in words (the platform's own `status_message` follows). */
const REASONS = new Map<number, string>([
  [STATUS.invalidUrl, 'the URL is not valid'],
  [STATUS.invalidAuthToken, 'the token is not valid'],
  [STATUS.badData, 'the message is not valid'],
  [STATUS.missingData, 'a field is missing'],
  [STATUS.receiverNotRegistered, 'the user is not registered on the platform'],
  [STATUS.receiverNotSubscribed, 'the user is not subscribed to the account (never wrote, or unsubscribed)'],
  [STATUS.publicAccountBlocked, 'the account is blocked'],
  [STATUS.publicAccountNotFound, 'the account was not found'],
  [STATUS.publicAccountSuspended, 'the account is suspended'],
  [STATUS.webhookNotSet, 'no webhook is set for the account'],
  [STATUS.receiverNoSuitableDevice, "the user's app is too old for this message"],
  [STATUS.tooManyRequests, 'too many requests (at most 100 messages to a user within an hour without a reply)'],
]);

/**
 * Message tokens are 64-bit integers written as bare JSON numbers, beyond what a double holds:
 * they are read as text so that receipts name exactly the message that was sent.
 */
export function parseJson(text: string): unknown {
  return JSON.parse(text.replace(/("message_token"\s*:\s*)(-?\d+)/g, '$1"$2"')) as unknown;
}

export function statusFailure(status: number, statusMessage: string): PlatformFailure {
  const reason = REASONS.get(status);
  const message = reason
    ? `The platform refused: ${reason} (status ${status}, ${statusMessage}).`
    : `The platform refused (status ${status}, ${statusMessage}).`;
  // Too many requests passes with time; the others need something to change first.
  return { ok: false, retryable: status === STATUS.tooManyRequests, code: status === STATUS.tooManyRequests ? 'rate_limited' : String(status), message };
}

export class AppmsgApi {
  constructor(
    private readonly apiUrl: string,
    private readonly authHeaderName: string,
    private readonly timeoutMs: number,
  ) {}

  async call(token: string, endpoint: string, body: Json = {}): Promise<PlatformResult<Json>> {
    const answer = await httpCall(
      `${this.apiUrl.replace(/\/+$/, '')}/pa/${endpoint}`,
      { method: 'POST', headers: { 'content-type': 'application/json', [this.authHeaderName]: token }, body: JSON.stringify(body), platform: 'appmsg' },
      this.timeoutMs,
    );
    if (!answer.ok) return answer;
    let json: unknown;
    try {
      json = parseJson(answer.value.text);
    } catch {
      json = undefined;
    }
    const result = (typeof json === 'object' && json !== null ? json : undefined) as Json | undefined;
    if (answer.value.status !== 200 || result === undefined || typeof result.status !== 'number') {
      return { ok: false, retryable: true, code: String(answer.value.status), message: `The platform answered HTTP ${answer.value.status}.` };
    }
    if (result.status !== 0) return statusFailure(result.status, typeof result.status_message === 'string' ? result.status_message : '');
    return { ok: true, value: result };
  }
}
