import type { IncomingHttpHeaders } from 'node:http';
import { EventLog } from './event-log.js';
import { expectedSignatures, Receiver } from './receiver.js';

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
  const receiver = await Receiver.start();
  const log = new EventLog<ReceivedEvent>();
  const hooks: WebhookReceiver = {
    url: receiver.url('/hook'),
    events: log.events,
    secret: '',
    waitFor: (event, match = () => true, timeoutMs = 10_000) => log.waitFor((e) => e.event === event && match(e), { what: `${event} webhook`, timeoutMs }),
    close: () => receiver.close(),
  };
  receiver.answer = (call) => {
    const signatureValid = call.headers['x-hub-signature'] === expectedSignatures(call.raw, hooks.secret).sha1;
    log.push({ ...call.body, headers: call.headers, signatureValid });
    return { status: 200, body: 'ok' };
  };
  return hooks;
}
