import type { FastifyInstance } from 'fastify';

// Platforms accept urlencoded and multipart bodies besides JSON. Both are parsed into one shape;
// multipart parsing reuses the WHATWG FormData parser that ships with Node's fetch.

export interface UploadedFile {
  field: string;
  fileName: string;
  contentType: string;
  data: Buffer;
}

export interface ParsedForm {
  readonly form: true;
  /** Last value of each field. */
  fields: Record<string, string>;
  /** Every value in order (fields may repeat, e.g. `to`). */
  all: Array<[string, string]>;
  files: UploadedFile[];
}

export function isParsedForm(value: unknown): value is ParsedForm {
  return typeof value === 'object' && value !== null && (value as { form?: unknown }).form === true;
}

function fromPairs(pairs: Iterable<[string, string]>, files: UploadedFile[]): ParsedForm {
  const fields: Record<string, string> = {};
  const all: Array<[string, string]> = [];
  for (const [k, v] of pairs) {
    fields[k] = v;
    all.push([k, v]);
  }
  return { form: true, fields, all, files };
}

export async function parseMultipart(body: Buffer, contentType: string): Promise<ParsedForm> {
  const data = await new Response(Uint8Array.from(body), { headers: { 'content-type': contentType } }).formData();
  const pairs: Array<[string, string]> = [];
  const files: UploadedFile[] = [];
  for (const [key, value] of data.entries()) {
    if (typeof value === 'string') {
      pairs.push([key, value]);
    } else {
      files.push({
        field: key,
        fileName: value.name || key,
        contentType: value.type || 'application/octet-stream',
        data: Buffer.from(await value.arrayBuffer()),
      });
    }
  }
  return fromPairs(pairs, files);
}

export function parseUrlencoded(body: string): ParsedForm {
  return fromPairs(new URLSearchParams(body).entries(), []);
}

export function registerFormParsers(app: FastifyInstance, bodyLimit: number): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit }, (_req, body, done) => {
    done(null, parseUrlencoded(typeof body === 'string' ? body : body.toString('utf8')));
  });
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit }, (req, body, done) => {
    const buf = typeof body === 'string' ? Buffer.from(body) : body;
    parseMultipart(buf, String(req.headers['content-type'] ?? '')).then(
      (form) => done(null, form),
      (err: unknown) => {
        const e = err instanceof Error ? err : new Error(String(err));
        (e as Error & { statusCode?: number }).statusCode = 400;
        done(e, undefined);
      },
    );
  });
}

/** Query + body merged into one parameter map, the way platform APIs treat them. */
export function mergedParams(query: unknown, body: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof query === 'object' && query !== null) Object.assign(out, query);
  if (isParsedForm(body)) Object.assign(out, body.fields);
  else if (typeof body === 'object' && body !== null && !Array.isArray(body)) Object.assign(out, body);
  return out;
}
