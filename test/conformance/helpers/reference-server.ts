/**
 * A recording HTTP server for conformance tests: it answers each platform call with the response
 * the platform's public reference shows for it (given by the test, route by route) and keeps
 * every request as received, so a test compares the connector's requests with the reference's
 * example requests. It simulates nothing else: no state, no validation, no callbacks.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: string;
  /** The body as JSON, or undefined when it is not JSON. */
  json: any;
}

export interface ReferenceAnswer {
  status?: number;
  /** A string is sent as it is (for numbers JSON cannot hold); anything else as JSON. */
  body: unknown;
  headers?: Record<string, string>;
}

export type ReferenceRoute = (request: RecordedRequest) => ReferenceAnswer | undefined;

export interface ReferenceServer {
  url: string;
  requests: RecordedRequest[];
  /** Routes are tried in order; the first that answers wins; none: 404 with an empty JSON object. */
  routes: ReferenceRoute[];
  close(): Promise<void>;
}

export async function startReferenceServer(): Promise<ReferenceServer> {
  const requests: RecordedRequest[] = [];
  const routes: ReferenceRoute[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://reference.invalid');
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = body === '' ? undefined : JSON.parse(body);
      } catch {
        json = undefined;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body,
        json,
      };
      requests.push(recorded);
      const answer = routes.map((route) => route(recorded)).find((a) => a !== undefined) ?? { status: 404, body: {} };
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers }).end(req.method === 'HEAD' ? undefined : text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    routes,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A route answering `method` on paths matching `path`. */
export function on(method: string, path: RegExp, answer: ReferenceAnswer | ((r: RecordedRequest) => ReferenceAnswer)): ReferenceRoute {
  return (r) => (r.method === method && path.test(r.path) ? (typeof answer === 'function' ? answer(r) : answer) : undefined);
}
