/**
 * One error type for the whole service, a closed set of codes, and one table from code to HTTP
 * status. The API layer renders it into the specification's error body.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation: 422,
  rate_limited: 429,
  internal: 500,
  platform_error: 502,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  message: string;
  field?: string;
  rejected_value?: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly details: ErrorDetail[],
  ) {
    super(details[0]?.message ?? code);
    this.status = ERROR_STATUS[code];
  }

  static of(code: ErrorCode, message: string): ApiError {
    return new ApiError(code, [{ message }]);
  }

  static notFound(what = 'Resource'): ApiError {
    return ApiError.of('not_found', `${what} not found.`);
  }

  static invalid(field: string, rejectedValue: unknown, message: string): ApiError {
    return new ApiError('validation', [{ message, field, rejected_value: rejectedValue ?? null }]);
  }
}

/** Wording of validation messages, shared by the schema validator and hand-written rules. */
export const say = {
  cannotBeNull: (field: string) => `Property '${field}' cannot be null.`,
  missing: (field: string) => `Missing property '${field}'.`,
  notSupported: (field: string) => `Property '${field}' is not supported.`,
  notAllowedValue: (field: string, value: unknown, allowed: readonly string[]) =>
    `Property '${field}' with value '${String(value)}' does not match any allowed value: ${allowed.join(', ')}.`,
};
