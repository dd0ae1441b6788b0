// The provider's error body: {"errors":[{"code","description","parameter"}]}.

export class SpError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number,
    readonly description: string,
    readonly parameter: string | null = null,
    /** Further errors of the same request: validation errors come all at once, in `errors[]`. */
    readonly more: readonly SpError[] = [],
    /** Response headers (a rate limit's Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

export function renderSpError(err: SpError): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  const errors = [err, ...err.more].map((e) => ({ code: e.code, description: e.description, parameter: e.parameter }));
  return { status: err.httpStatus, body: { errors }, headers: err.headers };
}

export const notAllowed = (): SpError => new SpError(401, 2, 'Request not allowed (incorrect access_key)', 'access_key');
export const missing = (param: string): SpError => new SpError(422, 9, `${param} is required`, param);
export const invalid = (param: string, why = 'is invalid'): SpError => new SpError(422, 10, `${param} ${why}`, param);
export const noRecipients = (): SpError => new SpError(422, 9, 'no (correct) recipients found', 'recipients');
export const notFound = (what = 'message'): SpError => new SpError(404, 20, `${what} not found`, null);
export const noBalance = (): SpError => new SpError(422, 25, 'Not enough balance', null);
export const apiNotFound = (): SpError => new SpError(404, 98, 'API not found', null);
