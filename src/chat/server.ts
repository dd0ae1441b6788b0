import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { Server, type Socket } from 'socket.io';
import type { Logger } from '../lib/logger.js';
import { CLIENT_EVENTS, SERVER_EVENTS, type AckError, type ChatMessage, type ServerNotification } from '../schemas/chat.js';
import type { ChatService, ChatConnection, HandshakeResult } from '../domain/webchat/service.js';
import { ChatError } from '../domain/webchat/errors.js';
import type { ChatPush } from '../domain/webchat/push.js';
import { EventBudget } from './event-budget.js';
import { linkInstances, type ClusterLink } from './cluster.js';

export interface ChatServerOptions {
  chat: ChatService;
  logger: Logger;
  databaseUrl: string;
  /** Largest socket.io message (bounds file_upload). */
  maxMessageBytes: number;
  /** Events one connection may send: burst, then per second. */
  eventBurst?: number;
  eventsPerSecond?: number;
}

interface SocketData {
  handshake?: HandshakeResult;
}

type Ack = (response: unknown) => void;
const roomOf = (contactId: string) => `contact:${contactId}`;

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
      maxHttpBufferSize: options.maxMessageBytes,
      // Any page may open the transport; whether it may chat is the channel's whitelist,
      // answered with connection_rejected so the client learns why.
      cors: { origin: true, methods: ['GET', 'POST'] },
    });
    this.cluster = linkInstances(this.io, options.databaseUrl, options.logger);
    this.io.use((socket, next) => {
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

  private async handshake(socket: Socket): Promise<void> {
    const query = socket.handshake.query as Record<string, unknown>;
    const auth = (socket.handshake.auth ?? {}) as Record<string, unknown>;
    const read = (name: string) => firstString(query[name]) ?? firstString(auth[name]);
    const result = await this.options.chat.connect({
      channelId: read('channel_id'),
      sessionId: read('session_id'),
      externalContactId: read('external_contact_id'),
      origin: pageOrigin(socket.handshake.headers),
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
      socket.emit(SERVER_EVENTS.connectionRejected, { error_code: result.code, details: { message: result.message } });
      socket.disconnect();
      return;
    }
    const conn = result.connection;
    void socket.join(roomOf(conn.contactId));
    this.register(socket, conn);
    socket.emit(SERVER_EVENTS.connectionAccepted, { session_id: conn.sessionId });
  }

  private register(socket: Socket, conn: ChatConnection): void {
    const { chat, logger } = this.options;
    const budget = new EventBudget(this.options.eventBurst ?? 30, this.options.eventsPerSecond ?? 5);

    const on = (event: string, work: (data: unknown) => Promise<unknown>) => {
      socket.on(event, (...args: unknown[]) => {
        const ack: Ack = typeof args.at(-1) === 'function' ? (args.pop() as Ack) : () => undefined;
        if (!budget.take()) {
          ack({ error_code: 429, details: { message: 'Too many events; slow down.' } } satisfies AckError);
          return;
        }
        work(args[0]).then(ack, (error: unknown) => {
          if (error instanceof ChatError) {
            ack({ error_code: error.code, details: error.field ? { message: error.message, field: error.field } : { message: error.message } } satisfies AckError);
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
