import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { EventLog } from '../../helpers/event-log.js';

// A webhook receiver as a client of the service would run one: it checks X-Hub-Signature itself
// (HMAC-SHA1 of the exact body bytes with the channel's webhook secret, computed here, not by
// the service's code) and keeps the events whose signature was valid.

export interface ReceivedEvent {
  event: string;
  timestamp: string;
  data: any;
  headers: IncomingHttpHeaders;
  signatureValid: boolean;
}

export interface WebhookReceiver {
  url: string;
  events: ReceivedEvent[];
  /** The secret of the channel whose events arrive here (set after the channel is made). */
  secret: string;
  /** Waits for an event of this type matching the filter. */
  waitFor(event: string, match?: (e: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const log = new EventLog<ReceivedEvent>();
  const receiver = { secret: '' } as WebhookReceiver;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const expected = `sha1=${createHmac('sha1', receiver.secret).update(raw).digest('hex')}`;
      const body = JSON.parse(raw.toString('utf8'));
      log.push({ ...body, headers: req.headers, signatureValid: req.headers['x-hub-signature'] === expected });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  receiver.url = `http://127.0.0.1:${address.port}/hook`;
  receiver.events = log.events;
  receiver.waitFor = (event, match = () => true, timeoutMs = 10_000) =>
    log.waitFor((e) => e.event === event && match(e), { what: `${event} webhook`, timeoutMs });
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
