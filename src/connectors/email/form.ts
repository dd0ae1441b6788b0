import type { InboundCall, StagedFile } from '../connector.js';
import { digestOf } from './signature.js';

/**
 * The provider's form bodies as the connector reads them: the route streams forms on the mail
 * endpoint (`call.form`: fields, files staged on disk, the raw body's digest); a urlencoded body
 * handed over whole (`rawBody`) is read the same way. A multipart body is never parsed here.
 */
export interface FormPart {
  name: string;
  value: string;
  /** Set for file parts. */
  file?: StagedFile;
}

export interface ReadForm {
  parts: FormPart[];
  bodyDigest: string;
}

/** The parts of the call's form with the raw body's digest, or null when it is not a form the connector reads. */
export function formOf(call: InboundCall): ReadForm | null {
  if (call.form) {
    const parts: FormPart[] = call.form.fields.map(([name, value]) => ({ name, value }));
    for (const { field: name, ...file } of call.form.files) parts.push({ name, value: '', file });
    return { parts, bodyDigest: call.form.bodyDigest };
  }
  const type = (call.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/x-www-form-urlencoded')) return null;
  const parts = [...new URLSearchParams(call.rawBody.toString('utf8'))].map(([name, value]) => ({ name, value }));
  return { parts, bodyDigest: digestOf(call.rawBody) };
}

/** The first value of a field, or undefined. */
export function field(parts: readonly FormPart[], name: string): string | undefined {
  return parts.find((p) => p.name === name && p.file === undefined)?.value;
}
