import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths that must never reach a log line: tokens, webhook secrets and platform credentials. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  '*.access_token',
  '*.secret',
  '*.signing_key',
  '*.token',
  'access_token',
  'secret',
  'signing_key',
];

/** `?access_token=` in a URL is a credential too. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]access_token=)[^&]*/g, '$1[redacted]');
}

interface LoggedRequest {
  id?: string;
  method?: string;
  url?: string;
  ip?: string;
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: {
        req: (req: LoggedRequest) => ({ id: req.id, method: req.method, url: req.url ? redactUrl(req.url) : undefined, remoteAddress: req.ip }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
