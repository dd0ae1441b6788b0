/**
 * The webhook receiver of the NLP benchmark (127.0.0.1, in the load's process, so its clock is the
 * load's): each channel's webhook posts to /{channel name}; every message_received is kept by
 * channel and text, with the time it arrived and its nlp.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '../shared/wait-for.js';

export interface Arrival {
  /** performance.now() when the call's body was read. */
  at: number;
  nlp: boolean;
  topIntent: string | null;
}

interface ReceivedEvent {
  event?: string;
  data?: { content?: { type?: string; payload?: unknown }; nlp?: { intents?: Array<{ id: string }> } };
}

export const arrivalKey = (channel: string, text: string) => `${channel}\u0000${text}`;

export class EventReceiver {
  readonly arrivals = new Map<string, Arrival>();
  /** message_received events per channel name. */
  readonly counts = new Map<string, number>();
  /** Events with a key already seen (a delivery made twice). */
  duplicates = 0;
  private waiters: Array<() => void> = [];
  private readonly server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedEvent;
      const channel = (req.url ?? '/').slice(1);
      const data = body.data;
      if (body.event !== 'message_received' || data?.content?.type !== 'text' || typeof data.content.payload !== 'string') return;
      const key = arrivalKey(channel, data.content.payload);
      if (this.arrivals.has(key)) this.duplicates += 1;
      else this.arrivals.set(key, { at, nlp: data.nlp !== undefined, topIntent: data.nlp?.intents?.[0]?.id ?? null });
      this.counts.set(channel, (this.counts.get(channel) ?? 0) + 1);
      for (const w of this.waiters.splice(0)) w();
    });
  });

  async start(): Promise<string> {
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  count(channel: string): number {
    return this.counts.get(channel) ?? 0;
  }

  /** Waits (bounded) until `channel` has `n` message_received events; false when the time ran out. */
  waitFor(channel: string, n: number, timeoutMs: number): Promise<boolean> {
    return waitUntil(() => this.count(channel) >= n, this.waiters, timeoutMs);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
