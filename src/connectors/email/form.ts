/**
 * The provider's form bodies as received: urlencoded, or multipart/form-data when a forwarded
 * mail has attachments. Parsed synchronously from the raw bytes (inbound parsing is pure).
 */
export interface FormPart {
  name: string;
  value: string;
  /** Set for file parts. */
  file?: { fileName: string; mimeType: string; bytes: Buffer };
}

function headerParam(header: string, name: string): string | undefined {
  const m = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;\\s]+)`, 'i').exec(header);
  const raw = m?.[1] ?? m?.[2];
  return raw?.replace(/\\(.)/g, '$1');
}

function parseMultipart(body: Buffer, boundary: string): FormPart[] | null {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) return null;
  for (;;) {
    at += delimiter.length;
    // `--` after the delimiter ends the body.
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return parts;
    if (body[at] === 0x0d && body[at + 1] === 0x0a) at += 2;
    const headEnd = body.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return null;
    const head = body.subarray(at, headEnd).toString('utf8');
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headEnd + 4);
    if (next < 0) return null;
    const content = body.subarray(headEnd + 4, next);
    const headers = new Map<string, string>();
    for (const line of head.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const disposition = headers.get('content-disposition') ?? '';
    const name = headerParam(disposition, 'name');
    if (name !== undefined) {
      const fileName = headerParam(disposition, 'filename');
      if (fileName !== undefined) {
        parts.push({
          name,
          value: '',
          file: { fileName, mimeType: headers.get('content-type') ?? 'application/octet-stream', bytes: Buffer.from(content) },
        });
      } else parts.push({ name, value: content.toString('utf8') });
    }
    at = next + 2;
  }
}

/** The parts of a form body, or null when it is not a form this parser reads. */
export function parseForm(contentType: string | undefined, body: Buffer): FormPart[] | null {
  const type = (contentType ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) {
    const boundary = headerParam(contentType ?? '', 'boundary');
    return boundary ? parseMultipart(body, boundary) : null;
  }
  if (type.startsWith('application/x-www-form-urlencoded') || type === '') {
    return [...new URLSearchParams(body.toString('utf8'))].map(([name, value]) => ({ name, value }));
  }
  return null;
}

/** The first value of a field, or undefined. */
export function field(parts: readonly FormPart[], name: string): string | undefined {
  return parts.find((p) => p.name === name && p.file === undefined)?.value;
}
