import type { IncomingHttpHeaders } from 'node:http';
import { Receiver as HttpReceiver, type Answer as HttpAnswer } from '../../helpers/receiver.js';

// A real local HTTP receiver standing in for the service under test: records every request with its
// raw body and answers with whatever the test configures. A view of the tests' one receiver
// (test/helpers/receiver.ts) in the terms the stand-in tests use.

export interface Received {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  text: string;
}

export type Answer = Exclude<HttpAnswer, 'hang'>;

export type Responder = (req: Received) => Answer;

export interface Receiver {
  url: string;
  received: Received[];
  respond(responder: Responder): void;
  close(): Promise<void>;
}

export async function startReceiver(responder: Responder = () => ({ status: 200, body: 'ok' })): Promise<Receiver> {
  let current = responder;
  const received: Received[] = [];
  const receiver = await HttpReceiver.start();
  receiver.answer = (call) => {
    const url = new URL(call.path || '/', 'http://127.0.0.1');
    const entry: Received = {
      method: call.method,
      url: call.path || '/',
      path: url.pathname,
      query: url.searchParams,
      headers: call.headers,
      rawBody: call.raw,
      text: call.raw.toString('utf8'),
    };
    received.push(entry);
    return current(entry);
  };
  return {
    url: receiver.origin,
    received,
    respond(r) {
      current = r;
    },
    close: () => receiver.close(),
  };
}
