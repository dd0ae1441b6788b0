import { STATUS_CODES } from 'node:http';

// The server's error body: {"version", "status": "failure", "message", "reason", "details", "help",
// "code"}. `help` is a link into the server's documentation there; the stand-in has none to give.

export class NluError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly reason: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** Response headers (a rate limit's Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** An injected fault that answers nothing: the connection is closed. */
export class ConnectionDrop extends Error {}

export function errorBody(err: NluError, version: string): Record<string, unknown> {
  return { version, status: 'failure', message: err.message, reason: err.reason, details: err.details, help: null, code: err.httpStatus };
}

/** The reason of an error the framework raised (body too large, bad content length): its status phrase. */
export function reasonOf(status: number): string {
  return (STATUS_CODES[status] ?? 'Error').replace(/[^A-Za-z]/g, '');
}

export const notAuthenticated = (): NluError => new NluError(401, 'NotAuthenticated', 'User is not authenticated.');
export const noAgent = (): NluError => new NluError(409, 'Conflict', 'No agent loaded. To continue processing, a model of a trained agent needs to be loaded.');
export const noText = (): NluError =>
  new NluError(
    400,
    'BadRequest',
    'No text message defined in request_body. Add text message to request body in order to obtain the intent and extracted entities.',
  );
export const unparsable = (why: string): NluError => new NluError(400, 'ParsingError', `An unexpected error occurred. Error: ${why}`);
