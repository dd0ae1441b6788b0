// The platform's error envelope: {"ok":false,"error_code":N,"description":"...","parameters":{...}}.

export class BotError extends Error {
  constructor(
    readonly errorCode: number,
    readonly description: string,
    readonly parameters: Record<string, unknown> | undefined = undefined,
  ) {
    super(description);
  }
}

export const badRequest = (what: string): BotError => new BotError(400, `Bad Request: ${what}`);
export const forbidden = (what: string): BotError => new BotError(403, `Forbidden: ${what}`);
export const unauthorized = (): BotError => new BotError(401, 'Unauthorized');
export const notFound = (): BotError => new BotError(404, 'Not Found');
export const tooManyRequests = (retryAfter: number): BotError => new BotError(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });

export function renderBotError(err: BotError): { status: number; body: Record<string, unknown> } {
  const body: Record<string, unknown> = { ok: false, error_code: err.errorCode, description: err.description };
  if (err.parameters) body.parameters = err.parameters;
  return { status: err.errorCode, body };
}
