import { randomAlnum } from '../shared/ids.js';
import type { TokenInvalidReason } from './state.js';

// The platform's error body: {"error":{"message","type","code","error_subcode",..., "<pf>trace_id"}}.
// Thrown as ApiError inside handlers and rendered by the stand-in's error handler.

export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly subcode: number | undefined = undefined,
    readonly type: string = 'OAuthException',
    readonly httpStatus: number = 400,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function renderApiError(err: ApiError, abbreviation: string): { status: number; body: Record<string, unknown> } {
  const inner: Record<string, unknown> = { message: err.message, type: err.type, code: err.code };
  if (err.subcode !== undefined) inner.error_subcode = err.subcode;
  Object.assign(inner, err.extra);
  inner[`${abbreviation}trace_id`] = randomAlnum(11);
  return { status: err.httpStatus, body: { error: inner } };
}

/** `(#100) ...` parameter errors. */
export function paramError(message: string, subcode?: number): ApiError {
  return new ApiError(100, `(#100) ${message}`, subcode);
}

export const noMatchingUser = (): ApiError => new ApiError(100, '(#100) No matching user found', 2018001);

export const outsideWindow = (): ApiError =>
  new ApiError(
    10,
    '(#10) This message is sent outside of allowed window. Learn more about the new policy here: https://developers.example/docs/messaging-policy',
    2018278,
    'OAuthException',
    400,
  );

export const userUnavailable = (): ApiError => new ApiError(551, "(#551) This person isn't available right now.", 1545041);

export const unsupportedGet = (id: string): ApiError =>
  new ApiError(
    100,
    `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    33,
    'OAuthException',
  );

export const unknownPath = (path: string): ApiError => new ApiError(2500, `Unknown path components: ${path}`, undefined, 'OAuthException');

export const noAccessToken = (): ApiError => new ApiError(104, 'An access token is required to request this resource.');

export const invalidToken = (): ApiError => new ApiError(190, 'Invalid OAuth access token.');

function formatDate(ms: number): string {
  return new Date(ms).toUTCString();
}

export function tokenInvalid(reason: TokenInvalidReason, appId: string, expiredAt: number, now: number): ApiError {
  switch (reason) {
    case 'deauthorized':
      return new ApiError(190, `Error validating access token: The user has not authorized application ${appId}.`, 458);
    case 'password_changed':
      return new ApiError(
        190,
        'Error validating access token: The session has been invalidated because the user changed their password or the platform has changed the session for security reasons.',
        460,
      );
    case 'expired':
      return new ApiError(190, `Error validating access token: Session has expired on ${formatDate(expiredAt)}. The current time is ${formatDate(now)}.`, 463);
    case 'logged_out':
      return new ApiError(190, 'Error validating access token: The session is invalid because the user logged out.', 467);
  }
}

export const SUBCODE_BY_REASON: Record<TokenInvalidReason, number> = {
  deauthorized: 458,
  password_changed: 460,
  expired: 463,
  logged_out: 467,
};

export const RATE_LIMIT_MESSAGES: Record<number, string> = {
  4: '(#4) Application request limit reached',
  17: '(#17) User request limit reached',
  32: '(#32) Page request limit reached',
  613: '(#613) Calls to this api have exceeded the rate limit.',
};

export const transientError = (status: number): ApiError =>
  new ApiError(2, 'An unexpected error has occurred. Please retry your request later.', undefined, 'OAuthException', status, {
    is_transient: true,
  });
