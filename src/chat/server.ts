import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { Server, type Socket } from 'socket.io';
import type { Logger } from '../lib/logger.js';
import { CLIENT_EVENTS, REJECTION, SERVER_EVENTS, type AckError, type ChatMessage, type ConnectionRejected, type ServerNotification } from '../schemas/chat.js';
import type { ChatService, ChatConnection, HandshakeResult } from '../domain/webchat/service.js';
import { ChatError } from '../domain/webchat/errors.js';
import type { ChatPush } from '../domain/webchat/push.js';
import type { ChatLimits } from '../domain/webchat/limits.js';
import { addressKey } from '../lib/client-address.js';
import type { ClusterBus } from '../store/store.js';
import { linkInstances, type ClusterLink } from './cluster.js';
import { chatCors } from './cors.js';

export interface ChatServerOptions {
  chat: ChatService;
  logger: Logger;
  /** The store's bus between instances (Store.openClusterBus): null where one process serves everything. */
  openClusterBus: (onError: (error: Error) => void) => ClusterBus | null;
  /** Largest file_upload (CHAT_MAX_UPLOAD_BYTES); the transport's buffer is sized from it. */
  maxUploadBytes: number;
  limits: ChatLimits;
  /** The client's address behind a request (the peer, or what trusted proxies report). */
  clientAddress: (req: IncomingMessage) => string;
  /** Told when an accepted session connects (+1) and when it goes (-1): the metrics' gauge. */
  onSessionCount?: (change: 1 | -1) => void;
}

interface SocketData {
  handshake?: HandshakeResult;
}

/** An engine.io connection as counted here: its client's address, and whether it got a slot. */
interface Transport {
  request: IncomingMessage;
  once(event: 'close', listener: () => void): unknown;
}
interface Admission {
  address: string;
  admitted: boolean;
}

/**
 * The largest message the transport takes. Over long-polling, binary travels base64-encoded
 * (4 bytes for every 3) in a text payload, so an upload of the largest allowed size needs a third
 * more room than its bytes; the rest is room for the event's other fields and packets sent along.
 */
export const transportBufferBytes = (maxUploadBytes: number): number => Math.ceil(maxUploadBytes / 3) * 4 + 64 * 1024;

type Ack = (response: unknown) => void;
const roomOf = (contactId: string) => `contact:${contactId}`;
const KNOWN_EVENTS: ReadonlySet<string> = new Set(Object.values(CLIENT_EVENTS));

function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

/** The page's origin. Same-origin polling requests carry no Origin header; their Referer names the page. */
function pageOrigin(headers: Record<string, string | string[] | undefined>): string | undefined {
  const origin = firstString(headers.origin);
  if (origin && origin !== 'null') return origin;
  const referer = firstString(headers.referer);
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

/**
 * The service_chat server (contract.md §9): socket.io v4 on the API's own HTTP server, also
 * speaking the protocol of socket.io-client 2.x (allowEIO3). Each connection is resolved to a
 * contact during the handshake, before the client can send anything; accepted connections join
 * their contact's room, which is how messages reach every tab and every server instance.
 */
export class ChatServer implements ChatPush {
  readonly io: Server;
  private readonly cluster: ClusterLink;

  constructor(
    httpServer: HttpServer | HttpsServer,
    private readonly options: ChatServerOptions,
  ) {
    this.io = new Server(httpServer, {
      allowEIO3: true,
      serveClient: false,
      maxHttpBufferSize: transportBufferBytes(options.maxUploadBytes),
    });
    // Connections are counted per client address as the transport opens them (before the
    // handshake reaches the database) and released when it closes, whatever happens between.
    this.io.engine.on('connection', (transport: Transport) => this.admit(transport));
    // Any page may open the transport; whether it may chat is the channel's whitelist, answered
    // with connection_rejected so the client learns why. Whitelisted pages are also allowed
    // credentials (see cors.ts).
    this.io.engine.use(chatCors((channelId, origin) => options.chat.allowsOrigin(channelId, origin), options.logger));
    this.cluster = linkInstances(this.io, options.openClusterBus, options.logger);
    this.io.use((socket, next) => {
      if (!this.cluster.up()) {
        next(new Error('The chat server is unavailable; try again later.'));
        return;
      }
      this.handshake(socket).then(
        () => next(),
        (error: unknown) => {
          options.logger.error({ err: error }, 'chat handshake failed');
          next(new Error('The chat server is unavailable; try again later.'));
        },
      );
    });
    this.io.on('connection', (socket) => this.onConnection(socket));
  }

  private readonly admissions = new WeakMap<object, Admission>();

  private admit(transport: Transport): Admission {
    let admission = this.admissions.get(transport);
    if (admission) return admission;
    const address = addressKey(this.options.clientAddress(transport.request));
    admission = { address, admitted: this.options.limits.openConnection(address) };
    this.admissions.set(transport, admission);
    if (admission.admitted) transport.once('close', () => this.options.limits.closeConnection(address));
    return admission;
  }

  private async handshake(socket: Socket): Promise<void> {
    const admission = this.admit(socket.conn as unknown as Transport);
    if (!admission.admitted) {
      const limit = this.options.limits.settings.connectionsPerAddress;
      (socket.data as SocketData).handshake = {
        ok: false,
        code: REJECTION.tooManyConnections,
        message: `Too many connections from your network (at most ${limit} at once); close other chat windows or try again later.`,
      };
      return;
    }
    const query = socket.handshake.query as Record<string, unknown>;
    const auth = (socket.handshake.auth ?? {}) as Record<string, unknown>;
    const read = (name: string) => firstString(query[name]) ?? firstString(auth[name]);
    const result = await this.options.chat.connect({
      channelId: read('channel_id'),
      sessionId: read('session_id'),
      externalContactId: read('external_contact_id'),
      origin: pageOrigin(socket.handshake.headers),
      clientAddress: admission.address,
    });
    (socket.data as SocketData).handshake = result;
  }

  private onConnection(socket: Socket): void {
    const result = (socket.data as SocketData).handshake;
    if (!result) {
      socket.disconnect(true);
      return;
    }
    if (!result.ok) {
      // The client closes its transport when told so; a client that does not is closed by
      // socket.io's connect timeout, as it has no namespace left.
      const details = result.retryAfter === undefined ? { message: result.message } : { message: result.message, retry_after: result.retryAfter };
      socket.emit(SERVER_EVENTS.connectionRejected, { error_code: result.code, details } satisfies ConnectionRejected);
      socket.disconnect();
      return;
    }
    const conn = result.connection;
    const count = this.options.onSessionCount;
    if (count) {
      count(1);
      socket.once('disconnect', () => count(-1));
    }
    void socket.join(roomOf(conn.contactId));
    this.register(socket, conn);
    socket.emit(SERVER_EVENTS.connectionAccepted, { session_id: conn.sessionId });
  }

  private register(socket: Socket, conn: ChatConnection): void {
    const { chat, logger, limits } = this.options;

    const on = (event: string, work: (data: unknown) => Promise<unknown>) => {
      socket.on(event, (...args: unknown[]) => {
        const ack: Ack = typeof args.at(-1) === 'function' ? (args.pop() as Ack) : () => undefined;
        // One budget for all connections of the contact (every tab, every device), so opening
        // more connections does not buy more events.
        if (!limits.takeEvent(conn.contactId)) {
          ack({ error_code: 429, details: { message: 'Too many events from this conversation; slow down.', retry_after: 1 } } satisfies AckError);
          return;
        }
        work(args[0]).then(ack, (error: unknown) => {
          if (error instanceof ChatError) {
            const details: AckError['details'] = { message: error.message };
            if (error.field) details.field = error.field;
            if (error.retryAfter !== undefined) details.retry_after = error.retryAfter;
            ack({ error_code: error.code, details } satisfies AckError);
            return;
          }
          logger.error({ err: error, event, contact: conn.contactId }, 'chat event failed');
          ack({ error_code: 500, details: { message: 'The server could not handle the event.' } } satisfies AckError);
        });
      });
    };

    on(CLIENT_EVENTS.messageClient, async (data) => {
      const message = await chat.receiveMessage(conn, data);
      // The user's other tabs (on any instance) show what this one sent.
      socket.to(roomOf(conn.contactId)).emit(SERVER_EVENTS.messageClientEcho, message);
      return message;
    });
    on(CLIENT_EVENTS.notificationClient, (data) => chat.receiveNotification(conn, data));
    on(CLIENT_EVENTS.messagesRead, (data) => chat.markRead(conn, data));
    on(CLIENT_EVENTS.messageDelivered, (data) => chat.markDelivered(conn, data));
    on(CLIENT_EVENTS.postback, (data) => chat.receivePostback(conn, data));
    on(CLIENT_EVENTS.listMessages, (data) => chat.listMessages(conn, data));
    on(CLIENT_EVENTS.fileUpload, (data) => chat.uploadFile(conn, data));

    // Any other event name (`__proto__`, `toString`, a typo) gets an answer too, so a client
    // waiting for its acknowledgement learns why rather than waiting forever.
    socket.onAny((event: unknown, ...args: unknown[]) => {
      if (typeof event === 'string' && KNOWN_EVENTS.has(event)) return;
      const ack = args.at(-1);
      if (typeof ack !== 'function') return;
      const name = typeof event === 'string' ? event.slice(0, 100) : typeof event;
      (ack as Ack)({ error_code: 400, details: { message: `Unknown event '${name}'; the events are ${[...KNOWN_EVENTS].join(', ')}.` } } satisfies AckError);
    });
  }

  message(contactId: string, message: ChatMessage): void {
    this.io.to(roomOf(contactId)).emit(SERVER_EVENTS.messageServer, message);
  }

  notification(contactId: string, notification: ServerNotification): void {
    this.io.to(roomOf(contactId)).emit(SERVER_EVENTS.notificationServer, notification);
  }

  /** Ends every connection and the link to other instances; the HTTP server is closed by its owner. */
  async close(): Promise<void> {
    // Discarding the transports closes them at once (a polling client that is not polling
    // right now would otherwise be waited for).
    this.io.engine.close();
    await Promise.resolve(this.io.of('/').adapter.close()).catch(() => undefined);
    await this.cluster.close();
  }
}
