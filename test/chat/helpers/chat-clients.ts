import { createRequire } from 'node:module';
import { io as ioV4 } from 'socket.io-client';
import { EventLog } from '../../helpers/event-log.js';

// Chat clients from Node, on both client generations the server must speak: socket.io-client 4.x
// and 2.x (the npm alias socket.io-client-v2). Each records what the server sent, so tests can
// wait for an event or assert that one never came.

const require = createRequire(import.meta.url);
const ioV2 = require('socket.io-client-v2') as (url: string, opts: Record<string, unknown>) => any;

export type ClientVersion = 2 | 4;

export interface ChatConnectOptions {
  version?: ClientVersion;
  /** The Origin header a browser on that page would send; null sends none. */
  origin?: string | null;
  channelId: string;
  sessionId?: string;
  externalContactId?: string;
  transports?: Array<'polling' | 'websocket'>;
  /** More request headers (e.g. X-Forwarded-For as a proxy would add it). */
  headers?: Record<string, string>;
}

export interface TestChatClient {
  readonly version: ClientVersion;
  /** Every server event, in order of arrival. */
  readonly events: Array<{ event: string; data: any }>;
  /** The first event of that name after `from` (an index into events), waiting for it. */
  next(event: string, options?: { from?: number; timeoutMs?: number }): Promise<any>;
  /** Whichever of these events comes first. */
  first(events: string[], options?: { from?: number; timeoutMs?: number }): Promise<{ event: string; data: any }>;
  /** Emits with an acknowledgement and resolves with it. */
  request(event: string, data?: unknown, timeoutMs?: number): Promise<any>;
  received(event: string): any[];
  close(): void;
}

const SERVER_EVENTS = ['connection_accepted', 'connection_rejected', 'message_server', 'message_client_echo', 'notification_server'];

export function connectChat(server: string, options: ChatConnectOptions): TestChatClient {
  const version = options.version ?? 4;
  const query: Record<string, string> = { v: '1', channel_id: options.channelId };
  if (options.sessionId) query.session_id = options.sessionId;
  if (options.externalContactId) query.external_contact_id = options.externalContactId;
  const headers: Record<string, string> = {
    ...options.headers,
    ...(options.origin === null || options.origin === undefined ? {} : { origin: options.origin }),
  };
  const common = { query, extraHeaders: headers, reconnection: false, forceNew: true, transports: options.transports ?? ['polling', 'websocket'] };
  const socket: any =
    version === 4
      ? ioV4(server, common)
      : ioV2(server, { ...common, transportOptions: { polling: { extraHeaders: headers }, websocket: { extraHeaders: headers } } });

  const log = new EventLog<{ event: string; data: any }>();
  const events = log.events;
  for (const name of [...SERVER_EVENTS, 'disconnect', 'connect_error', 'error']) {
    socket.on(name, (data: any) => log.push({ event: name, data }));
  }

  return {
    version,
    events,
    next(event, options) {
      return this.first([event], options).then((hit) => hit.data);
    },
    first(names, { from = 0, timeoutMs = 5000 } = {}) {
      return log.waitFor((e) => names.includes(e.event), { what: names.join(' or '), timeoutMs, from });
    },
    request(event, data, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no acknowledgement of ${event}`)), timeoutMs);
        timer.unref();
        socket.emit(event, data, (response: any) => {
          clearTimeout(timer);
          resolve(response);
        });
      });
    },
    received(event) {
      return events.filter((e) => e.event === event).map((e) => e.data);
    },
    close() {
      socket.close();
    },
  };
}

/** Connects and waits for the server's verdict: the accepted session id, or the rejection. */
export async function openChat(server: string, options: ChatConnectOptions): Promise<{ client: TestChatClient; sessionId: string }> {
  const client = connectChat(server, options);
  const verdict = await client.first(['connection_accepted', 'connection_rejected']);
  if (verdict.event !== 'connection_accepted') {
    client.close();
    throw new Error(`rejected: ${JSON.stringify(verdict.data)}`);
  }
  return { client, sessionId: verdict.data.session_id };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
