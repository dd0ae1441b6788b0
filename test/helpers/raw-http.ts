import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: any;
}

/**
 * Sends bytes as they are over a fresh TCP connection and reads one response: for requests an HTTP
 * client will not send (absolute-form request lines, malformed lines, oversized headers).
 */
export function rawRequest(origin: string, bytes: string | Buffer, timeoutMs = 5000): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${timeoutMs} ms: ${data.toString('latin1').slice(0, 200)}`));
    }, timeoutMs);
    const finish = () => {
      const parsed = parse(data);
      if (!parsed) return false;
      clearTimeout(timer);
      socket.destroy();
      resolve(parsed);
      return true;
    };
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (finish()) return;
      clearTimeout(timer);
      // Without Content-Length (204, 304, a closed connection) the body is what came.
      const lenient = parse(data, true);
      if (lenient) resolve(lenient);
      else reject(new Error(`connection closed without a complete response: ${data.toString('latin1').slice(0, 200)}`));
    });
    socket.write(bytes);
  });
}

function parse(data: Buffer, closed = false): RawResponse | null {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const given = Number(headers['content-length'] ?? NaN);
  const length = Number.isFinite(given) ? given : closed ? data.length - end - 4 : NaN;
  if (!Number.isFinite(length)) return null;
  if (data.length < end + 4 + length) return null;
  const text = data.subarray(end + 4, end + 4 + length).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status, headers, text, body };
}
