// The vendor's standard JSON error: {"error":{"code","message","status"}}.

export class RpcError extends Error {
  constructor(
    readonly code: number,
    readonly status: string,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (message = 'Requested entity was not found.'): RpcError => new RpcError(404, 'NOT_FOUND', message);
export const invalidArgument = (message: string): RpcError => new RpcError(400, 'INVALID_ARGUMENT', message);
export const unauthenticated = (): RpcError =>
  new RpcError(
    401,
    'UNAUTHENTICATED',
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  );
export const permissionDenied = (message = 'The caller does not have permission'): RpcError => new RpcError(403, 'PERMISSION_DENIED', message);

export function renderRpcError(err: RpcError): { status: number; body: Record<string, unknown> } {
  return { status: err.code, body: { error: { code: err.code, message: err.message, status: err.status } } };
}
