/**
 * The local HTTP receiver of the tests: records every call with its raw body bytes and answers as
 * the test says (a status, headers, a delay, or never: 'hang'). HTTP or HTTPS. The webhook
 * receiver of the chat and connector tests (webhooks.ts) and the sandbox's stand-in for the
 * service (test/sandbox/helpers/receiver.ts) are views of this one.
 */
import { createServer as createHttp, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Call {
  method: string;
  /** The request target as sent: path and query. */
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: any;
  /** Wall time the call arrived. */
  at: number;
}

export type Answer = { status: number; body?: string; headers?: Record<string, string>; delayMs?: number } | 'hang';

export class Receiver {
  readonly calls: Call[] = [];
  /** Requests that arrived and have not been answered (hanging ones included). */
  open = 0;
  maxOpen = 0;
  answer: (call: Call) => Answer = () => ({ status: 200, body: 'ok' });
  private readonly sockets = new Set<Socket>();
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(options: { tls?: { key: Buffer; cert: Buffer }; host?: string } = {}): Promise<Receiver> {
    const ref: { receiver?: Receiver } = {};
    const handler = (req: IncomingMessage, res: ServerResponse) => ref.receiver?.handle(req, res);
    const server: Server = options.tls ? createHttps({ key: options.tls.key, cert: options.tls.cert }, handler) : createHttp(handler);
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const receiver = new Receiver(server, `${options.tls ? 'https' : 'http'}://${options.host ?? '127.0.0.1'}:${port}`);
    ref.receiver = receiver;
    const track = (socket: Socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    };
    server.on('connection', track);
    server.on('secureConnection', track);
    return receiver;
  }

  url(path = '/hook'): string {
    return `${this.origin}${path}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    this.open += 1;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    let counted = true;
    let gone = false;
    const done = () => {
      if (counted) this.open -= 1;
      counted = false;
    };
    res.on('close', () => {
      if (!res.writableEnded) gone = true; // the caller went away before the answer
      done();
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
      const call: Call = { method: req.method ?? 'GET', path: req.url ?? '', headers: req.headers, raw, body, at: Date.now() };
      this.calls.push(call);
      const answer = this.answer(call);
      for (const w of this.waiters.splice(0)) w();
      if (answer === 'hang') return;
      const send = () => {
        if (gone || res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
        done();
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  }

  /** Resolves when `predicate` holds, checked after each call; rejects after `timeoutMs`. */
  async waitFor(predicate: (calls: Call[]) => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.calls)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver: condition not met within ${timeoutMs} ms (${this.calls.length} calls)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 50));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  waitForCount(n: number, timeoutMs = 15_000): Promise<void> {
    return this.waitFor((calls) => calls.length >= n, timeoutMs);
  }

  /** Event ids of the calls, in arrival order. */
  eventIds(): string[] {
    return this.calls.map((c) => String(c.headers['x-parley-event-id']));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The receiver's own check of a call's signatures: HMAC over the raw bytes, computed here. */
export function expectedSignatures(raw: Buffer, secret: string): { sha1: string; sha256: string } {
  return {
    sha1: `sha1=${createHmac('sha1', Buffer.from(secret, 'utf8')).update(raw).digest('hex')}`,
    sha256: `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest('hex')}`,
  };
}

/** A fresh self-signed certificate for 127.0.0.1 (openssl). */
export function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'parley-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
