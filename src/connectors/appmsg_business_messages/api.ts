import type { PlatformFailure, PlatformResult } from '../connector.js';
import { httpCall, jsonOf } from '../http.js';
import { httpFailure } from '../http-failure.js';

/**
 * The partner API's one call, `POST {apiUrl}/{segment}/1/send_message`: no token (the partner's
 * addresses are whitelisted for the numeric service id), HTTP 200 even on a refusal, the outcome
 * in `status` (0 taken, with `message_token`).
 */
type Json = Record<string, unknown>;

/** The platform's status codes (the name of 9 carries the product's brand: a neutral one here). */
export const STATUS_NAMES: Readonly<Record<number, string>> = {
  1: 'SRVC_INTERNAL_FAILURE',
  2: 'SRVC_BAD_SERVICE_ID',
  3: 'SRVC_BAD_DATA',
  5: 'SRVC_BAD_MESSAGE_TYPE',
  6: 'SRVC_BAD_PARAMETERS',
  7: 'SRVC_TIMEOUT',
  8: 'SRVC_USER_BLOCKED',
  9: 'SRVC_NOT_APP_USER',
  10: 'SRVC_NO_SUITABLE_DEVICE',
  11: 'SRVC_UNAUTHORIZED_IP',
  13: 'SRVC_NOT_PERMITTED',
  18: 'SRVC_BAD_LABEL',
  20: 'SRVC_INVALID_TTL',
  21: 'SRVC_WAIT_FOR_USER_RESPONSE',
  27: 'SRVC_INVALID_PHONE_NUMBER',
  28: 'SRVC_FILE_NOT_PERMITTED',
  29: 'SRVC_BAD_FILE_NAME_LENGTH',
  30: 'SRVC_BAD_THUMBNAIL',
  31: 'SRVC_BAD_FILE_SIZE',
  32: 'SRVC_BAD_DURATION',
  38: 'TEMPLATE_NOT_FOUND',
  39: 'TEMPLATE_VALIDATION_ERROR',
  40: 'LIST_VALIDATION_ERROR',
  41: 'CAROUSEL_VALIDATION_ERROR',
  43: 'SRVC_SERVICE_BLOCKED',
  401: 'SRVC_UNAUTHORIZED_IP',
};

/** Refusals that may pass when tried again: the platform's own failure and its timeout. */
const RETRYABLE_STATUSES = new Set([1, 7]);

/** What the platform says about a status code, for the stored reason. */
const REASONS: Readonly<Record<number, string>> = {
  8: 'The user blocked messages from this sender.',
  9: 'The phone number is not a user of the app.',
  10: 'The user has no device that can show this message.',
  11: "This service's address is not whitelisted for the sender id, or the sender id is not the partner's.",
  13: 'The sender id is not permitted to send (billing).',
  20: 'The time to live is outside 30 s to 14 days.',
  21: 'Session messages wait for the user to answer.',
  43: 'The sender id is blocked on the platform.',
};

/** A refusal in `status` as a failure: the code is the platform's number, classified by failure-codes.ts. */
export function statusFailure(status: number): PlatformFailure {
  const name = STATUS_NAMES[status] ?? 'UNKNOWN_STATUS';
  const reason = REASONS[status];
  const message = `The platform refused the message: status ${status} ${name}${reason ? ` (${reason})` : ''}.`;
  return { ok: false, retryable: RETRYABLE_STATUSES.has(status), code: String(status), message };
}

export interface SendAnswer {
  messageToken: string;
}

export class PartnerApi {
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  async send(body: Json): Promise<PlatformResult<SendAnswer>> {
    const answered = await httpCall(
      this.url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        platform: 'appmsg_business_messages',
      },
      this.timeoutMs,
    );
    if (!answered.ok) return answered;
    const answer = answered.value;
    // A refusal is an HTTP 200 with its status in the body; any other answer is read as for every platform.
    if (answer.status !== 200) return httpFailure(answer, Date.now());
    const json = jsonOf(answer) as Json | undefined;
    const status = typeof json?.status === 'number' ? json.status : null;
    if (status === null) return { ok: false, retryable: true, code: 'bad_answer', message: 'The platform answered without a status.' };
    if (status !== 0) return statusFailure(status);
    // Read from the text: a token sent as a JSON number has 19 digits, beyond a double's precision.
    const messageToken = /"message_token"\s*:\s*"?(\d{1,30})"?/.exec(answer.text)?.[1];
    // Taken without a token we can read: trying again would send it twice, so it fails as it is.
    if (messageToken === undefined)
      return { ok: false, retryable: false, code: 'bad_answer', message: 'The platform took the message but gave no message_token.' };
    return { ok: true, value: { messageToken } };
  }
}
