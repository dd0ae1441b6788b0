import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isParsedForm } from './form-body.js';

// Every platform API call the stand-in received, with what it answered, so tests can assert on
// exactly what the connector sent (including calls that failed validation).

export interface LoggedRequest {
  id: number;
  at: number;
  method: string;
  path: string;
  query: Record<string, unknown>;
  body: unknown;
  status: number;
  response: unknown;
}

export class RequestLog {
  readonly entries: LoggedRequest[] = [];
  private nextId = 1;
  constructor(private readonly maxEntries = 2000) {}

  add(entry: Omit<LoggedRequest, 'id'>): void {
    this.entries.push({ id: this.nextId++, ...entry });
    if (this.entries.length > this.maxEntries) this.entries.splice(0, this.entries.length - this.maxEntries);
  }

  clear(): void {
    this.entries.length = 0;
  }
}

function loggableBody(body: unknown): unknown {
  if (isParsedForm(body)) {
    return {
      form: body.fields,
      files: body.files.map((f) => ({ field: f.field, file_name: f.fileName, content_type: f.contentType, size: f.data.length })),
    };
  }
  return body;
}

function parsePayload(payload: unknown): unknown {
  if (typeof payload !== 'string') return payload === undefined || payload === null ? null : '<binary>';
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return payload.length > 2000 ? `${payload.slice(0, 2000)}…` : payload;
  }
}

/** Logs every request whose path is a platform path (not control, not media). */
export function registerRequestLog(app: FastifyInstance, log: RequestLog, isPlatformPath: (path: string) => boolean, now: () => number): void {
  app.addHook('onSend', async (req: FastifyRequest, reply, payload) => {
    const path = req.url.split('?')[0] ?? req.url;
    if (isPlatformPath(path)) {
      log.add({
        at: now(),
        method: req.method,
        path,
        query: { ...(req.query as Record<string, unknown>) },
        body: loggableBody(req.body),
        status: reply.statusCode,
        response: parsePayload(payload),
      });
    }
    return payload;
  });
}
