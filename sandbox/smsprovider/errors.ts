// The provider's error body: {"errors":[{"code","description","parameter"}]}.

export class SpError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number,
    readonly description: string,
    readonly parameter: string | null = null,
  ) {
    super(description);
  }
}

export function renderSpError(err: SpError): { status: number; body: Record<string, unknown> } {
  return { status: err.httpStatus, body: { errors: [{ code: err.code, description: err.description, parameter: err.parameter }] } };
}

export const notAllowed = (): SpError => new SpError(401, 2, 'Request not allowed (incorrect access_key)', 'access_key');
export const missing = (param: string): SpError => new SpError(422, 9, `${param} is required`, param);
export const invalid = (param: string, why = 'is invalid'): SpError => new SpError(422, 10, `${param} ${why}`, param);
export const noRecipients = (): SpError => new SpError(422, 9, 'no (correct) recipients found', 'recipients');
export const notFound = (what = 'message'): SpError => new SpError(404, 20, `${what} not found`, null);
export const noBalance = (): SpError => new SpError(422, 25, 'Not enough balance', null);
export const apiNotFound = (): SpError => new SpError(404, 98, 'API not found', null);
