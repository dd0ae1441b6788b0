import { randomHex } from './ids.js';

// multipart/form-data encoding for outbound calls that carry files.

export interface MultipartFile {
  field: string;
  fileName: string;
  contentType: string;
  data: Buffer;
}

export function encodeMultipart(fields: Array<[string, string]>, files: MultipartFile[]): { body: Buffer; contentType: string } {
  const boundary = `----sandbox${randomHex(12)}`;
  const chunks: Buffer[] = [];
  const quote = (s: string): string => s.replace(/["\r\n]/g, '_');
  for (const [name, value] of fields) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`, 'utf8'));
  }
  for (const f of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quote(f.field)}"; filename="${quote(f.fileName)}"\r\nContent-Type: ${f.contentType}\r\n\r\n`,
        'utf8',
      ),
    );
    chunks.push(f.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
