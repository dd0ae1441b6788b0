import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import type { StreamedForm } from '../connectors/connector.js';
import { ApiError } from '../lib/errors.js';
import { PRIVATE_FILE_MODE } from '../lib/private-files.js';

/** Form bodies (multipart, urlencoded): the types an endpoint with `streamedForm` reads as a stream. */
export function isFormBody(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  return type === 'multipart/form-data' || type === 'application/x-www-form-urlencoded';
}

export function tooLarge(limit: number): ApiError {
  return ApiError.of('payload_too_large', `Request body is larger than the limit of ${limit} bytes.`);
}

/** A body read whole into memory, `limit` bytes at most (the service's body limit); past it the rest is drained unread. */
export function readWhole(source: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      source.off('data', onData).off('end', onEnd).off('error', reject);
      source.resume();
      reject(tooLarge(limit));
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    source.on('data', onData).on('end', onEnd).on('error', reject);
  });
}

/** Parts of one form at most: far above what a forwarded mail has, well below what would cost. */
const MAX_FIELDS = 1000;
const MAX_FILES = 100;

export interface StagedForm {
  form: StreamedForm;
  /** Removes the staged files; call it once the call is answered, whatever the outcome. */
  discard(): Promise<void>;
}

/**
 * Reads a form body as a stream, `maxBytes` raw bytes at most: fields kept in memory (bounded by
 * the same total), each file written to a private temporary folder as it arrives, the raw bytes
 * hashed on the way. Over the limit, unreadable or cut short: the folder is removed and the error
 * thrown (413 over the limit, 400 otherwise); nothing is left on disk.
 */
export async function readStreamedForm(source: Readable, headers: IncomingHttpHeaders, maxBytes: number): Promise<StagedForm> {
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const dir = await mkdtemp(join(tmpdir(), 'parley-form-'));
  const discard = () => rm(dir, { recursive: true, force: true });
  const fields: Array<[string, string]> = [];
  const files: StreamedForm['files'] = [];
  const hash = createHash('sha256');
  const open: Array<{ part: Readable; out: Writable }> = [];
  const writes: Array<Promise<void>> = [];
  let received = 0;

  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > maxBytes) return done(tooLarge(maxBytes));
      hash.update(chunk);
      done(null, chunk);
    },
  });

  try {
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        source.unpipe(meter);
        reject(error instanceof ApiError ? error : ApiError.of('bad_request', `The form body could not be read: ${(error as Error)?.message ?? error}.`));
      };
      let parser: BusboyInstance;
      try {
        parser = Busboy({
          headers: headers as IncomingHttpHeaders & { 'content-type': string },
          limits: { fieldSize: maxBytes, fields: MAX_FIELDS, files: MAX_FILES, parts: MAX_FIELDS + MAX_FILES, fieldNameSize: 200 },
        });
      } catch (error) {
        fail(error);
        return;
      }
      parser.on('field', (name, value) => {
        fields.push([name, value]);
      });
      parser.on('file', (field, part, fileName, _encoding, mimeType) => {
        const path = join(dir, String(files.length));
        const out = createWriteStream(path, { mode: PRIVATE_FILE_MODE });
        const entry = { field, name: fileName, mimeType: mimeType || 'application/octet-stream', size: 0, open: () => createReadStream(path) };
        files.push(entry);
        open.push({ part, out });
        part.on('data', (chunk: Buffer) => {
          entry.size += chunk.length;
        });
        writes.push(pipeline(part, out).catch((error: unknown) => fail(error)));
      });
      for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const)
        parser.on(limit, () => fail(ApiError.of('bad_request', `A form has at most ${MAX_FIELDS} fields and ${MAX_FILES} files.`)));
      parser.on('error', fail);
      // Done when the parser has seen the last part and the body has ended: answering before the
      // client's last bytes arrived would leave its connection busy.
      let parsed = false;
      const settle = () => {
        if (settled || !parsed || !source.readableEnded) return;
        settled = true;
        resolve();
      };
      parser.on('finish', () => {
        parsed = true;
        settle();
      });
      source.on('end', settle);
      meter.on('error', fail);
      source.on('error', fail);
      source.on('close', () => {
        if (!source.readableEnded) fail(new Error('the body was cut short'));
      });
      source.pipe(meter).pipe(parser);
    });
    await Promise.all(writes);
    // A write that failed after the parser finished rejected nothing above: check every file landed.
    if (open.some(({ out }) => !out.writableFinished)) throw ApiError.of('bad_request', 'The form body could not be read.');
  } catch (error) {
    for (const { part, out } of open) {
      part.destroy();
      out.destroy();
    }
    await Promise.allSettled(writes);
    await discard();
    throw error;
  }
  return { form: { fields, files, bodyDigest: hash.digest('hex') }, discard };
}
