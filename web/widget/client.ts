import { io, type Socket } from 'socket.io-client';
import {
  CLIENT_EVENTS,
  REJECTION,
  SERVER_EVENTS,
  type AckError,
  type ChatContent,
  type ChatMessage,
  type ConnectionAccepted,
  type ConnectionRejected,
  type FileUploadResponse,
  type ListMessagesResponse,
  type ServerNotification,
} from '../../src/schemas/chat.js';
import { busyRetryDelayMs } from './busy-retry.js';

export type { AckError, ChatContent, ChatMessage, ConnectionRejected, ListMessagesResponse, ServerNotification };
export type { Button, Card, QuickReply } from '../../src/schemas/chat.js';

/**
 * The typed browser client of the web chat (contract.md §9), for sites that build their own
 * interface; the embeddable widget is built on it. It keeps the session id in the browser's
 * storage so that a reload or a reconnection continues the same conversation.
 */
export interface ChatClientOptions {
  /** The chat server's origin, e.g. https://chat.example.com (the server of the widget script). */
  server: string;
  channelId: string;
  /** The site's own id for a signed-in user: the same conversation on every device. Keep it unguessable. */
  externalContactId?: string;
  /** Where the session id is kept: `local` (default, survives restarts), `session` (this tab), or `none`. */
  storage?: 'local' | 'session' | 'none';
  /** Storage key of the session id; one per channel by default. */
  storageKey?: string;
  /** socket.io path on the server (default /socket.io). */
  path?: string;
}

/**
 * `busy`: the server refused the connection for now (too many connections or new sessions from
 * this address, connection_rejected code 4); the client connects again by itself. `rejected` is
 * final (codes 2 and 3).
 */
export type ConnectionState = 'idle' | 'connecting' | 'online' | 'offline' | 'busy' | 'rejected';

export interface ChatClientEvents {
  /** A message from the site (direction `received`). */
  message: (message: ChatMessage) => void;
  /** A message this user sent from another tab or device (direction `sent`). */
  echo: (message: ChatMessage) => void;
  notification: (notification: ServerNotification) => void;
  state: (state: ConnectionState) => void;
  /** A final refusal: the client does not connect again by itself. */
  rejected: (rejection: ConnectionRejected) => void;
  /** A temporary refusal (code 4): the client connects again in `retryInMs`. */
  busy: (rejection: ConnectionRejected, retryInMs: number) => void;
}

/** The promise of one connect() call, kept across the connections made for it. */
interface PendingConnect {
  resolve: () => void;
  reject: (error: Error) => void;
  settled: boolean;
}

/** An error acknowledgement, or a call made while not connected. */
export class ChatRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly field?: string,
    /** Seconds after which the same request may succeed, when the server says. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ChatRequestError';
  }
}

function storageOf(kind: ChatClientOptions['storage']): Storage | null {
  try {
    if (kind === 'none') return null;
    return kind === 'session' ? window.sessionStorage : window.localStorage;
  } catch {
    return null;
  }
}

function isAckError(value: unknown): value is AckError {
  return typeof value === 'object' && value !== null && typeof (value as { error_code?: unknown }).error_code === 'number';
}

function retryAfterOf(error: AckError): number | undefined {
  const value = (error.details as { retry_after?: unknown }).retry_after;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

const ACK_TIMEOUT_MS = 20_000;

export class ChatClient {
  private socket: Socket | null = null;
  private readonly listeners: { [K in keyof ChatClientEvents]: Set<ChatClientEvents[K]> } = {
    message: new Set(),
    echo: new Set(),
    notification: new Set(),
    state: new Set(),
    rejected: new Set(),
    busy: new Set(),
  };
  private readonly storage: Storage | null;
  private readonly storageKey: string;
  private currentState: ConnectionState = 'idle';
  /** Temporary refusals in a row; the wait before the next try grows with them. */
  private refusals = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: ChatClientOptions) {
    this.storage = storageOf(options.storage);
    this.storageKey = options.storageKey ?? `parley_chat_session_${options.channelId}`;
  }

  get state(): ConnectionState {
    return this.currentState;
  }

  get connected(): boolean {
    return this.currentState === 'online';
  }

  /** The stored session id, or null before the first accepted connection. */
  get sessionId(): string | null {
    try {
      return this.storage?.getItem(this.storageKey) ?? this.memorySession;
    } catch {
      return this.memorySession;
    }
  }
  private memorySession: string | null = null;

  private setSession(id: string | null): void {
    this.memorySession = id;
    try {
      if (id === null) this.storage?.removeItem(this.storageKey);
      else this.storage?.setItem(this.storageKey, id);
    } catch {
      // Storage may be full or blocked; the session then lasts as long as the page.
    }
  }

  on<K extends keyof ChatClientEvents>(event: K, listener: ChatClientEvents[K]): () => void {
    this.listeners[event].add(listener);
    return () => this.listeners[event].delete(listener);
  }

  private emitLocal<K extends keyof ChatClientEvents>(event: K, ...args: Parameters<ChatClientEvents[K]>): void {
    for (const listener of this.listeners[event]) (listener as (...a: Parameters<ChatClientEvents[K]>) => void)(...args);
  }

  private setState(state: ConnectionState): void {
    if (state === this.currentState) return;
    this.currentState = state;
    this.emitLocal('state', state);
  }

  private query(): Record<string, string> {
    const q: Record<string, string> = { v: '1', channel_id: this.options.channelId };
    const session = this.sessionId;
    if (session) q.session_id = session;
    if (this.options.externalContactId) q.external_contact_id = this.options.externalContactId;
    return q;
  }

  /**
   * Connects (or reconnects) and resolves once the server accepted the connection. A session of
   * another channel is dropped and a new one started, as the server asks. A temporary refusal
   * (code 4) is waited out: the client connects again after the server's retry_after, and the
   * promise stays pending until a connection is accepted or finally refused.
   */
  connect(): Promise<void> {
    this.disconnect();
    return new Promise((resolve, reject) => this.open({ resolve, reject, settled: false }));
  }

  private open(pending: PendingConnect): void {
    this.setState('connecting');
    const socket = io(this.options.server, {
      path: this.options.path ?? '/socket.io',
      query: this.query(),
      reconnection: true,
      reconnectionDelay: 1000,
      reconnectionDelayMax: 10_000,
      forceNew: true,
    });
    this.socket = socket;
    const settle = (error?: Error) => {
      if (pending.settled) return;
      pending.settled = true;
      if (error) pending.reject(error);
      else pending.resolve();
    };
    // Every reconnection presents the session the server gave last.
    socket.io.on('reconnect_attempt', () => {
      socket.io.opts.query = this.query();
      this.setState('connecting');
    });
    socket.on('disconnect', () => {
      if (this.currentState !== 'rejected') this.setState('offline');
    });
    socket.on(SERVER_EVENTS.messageServer, (m: ChatMessage) => this.emitLocal('message', m));
    socket.on(SERVER_EVENTS.messageClientEcho, (m: ChatMessage) => this.emitLocal('echo', m));
    socket.on(SERVER_EVENTS.notificationServer, (n: ServerNotification) => this.emitLocal('notification', n));
    socket.on(SERVER_EVENTS.connectionAccepted, (data: ConnectionAccepted) => {
      this.refusals = 0;
      this.setSession(data.session_id);
      this.setState('online');
      settle();
    });
    socket.on(SERVER_EVENTS.connectionRejected, (rejection: ConnectionRejected) => {
      if (rejection.error_code === REJECTION.sessionOfOtherChannel) {
        this.setSession(null);
        this.closeSocket();
        this.open(pending);
        return;
      }
      if (rejection.error_code === REJECTION.tooManyConnections) {
        // Not this page's doing, and it passes: wait and come back (also when this refusal
        // answered a reconnection of a page that was online).
        this.closeSocket();
        this.refusals += 1;
        const wait = busyRetryDelayMs(this.refusals, rejection.details.retry_after);
        this.setState('busy');
        this.emitLocal('busy', rejection, wait);
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.open(pending);
        }, wait);
        return;
      }
      this.setState('rejected');
      this.emitLocal('rejected', rejection);
      socket.disconnect();
      settle(new ChatRequestError(rejection.error_code, rejection.details.message));
    });
    socket.on('connect_error', (error: Error) => {
      this.setState('offline');
      if (!socket.active) settle(error);
    });
  }

  /** Closes the current connection, and cancels a retry that waits, without a state change. */
  private closeSocket(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (!this.socket) return;
    this.socket.removeAllListeners();
    this.socket.io.removeAllListeners();
    this.socket.disconnect();
    this.socket = null;
  }

  disconnect(): void {
    if (!this.socket && this.retryTimer === undefined) return;
    this.closeSocket();
    if (this.currentState !== 'rejected') this.setState('idle');
  }

  /** Sends one event and resolves with its acknowledgement (an error acknowledgement rejects). */
  private request<T>(event: string, data: unknown): Promise<T> {
    const socket = this.socket;
    if (!socket || !this.connected) return Promise.reject(new ChatRequestError(0, 'Not connected; call connect() first.'));
    return new Promise<T>((resolve, reject) => {
      socket.timeout(ACK_TIMEOUT_MS).emit(event, data, (timeout: Error | null, response: unknown) => {
        if (timeout) reject(new ChatRequestError(0, 'The server did not answer in time.'));
        else if (isAckError(response))
          reject(new ChatRequestError(response.error_code, response.details.message, response.details.field, retryAfterOf(response)));
        else resolve(response as T);
      });
    });
  }

  send(content: ChatContent, metadata?: Record<string, unknown>): Promise<ChatMessage> {
    return this.request<ChatMessage>(CLIENT_EVENTS.messageClient, metadata ? { content, metadata } : { content });
  }

  sendText(text: string, metadata?: Record<string, unknown>): Promise<ChatMessage> {
    return this.send({ type: 'text', payload: text }, metadata);
  }

  /** The user tapped a quick reply: its title as text, its payload as quick_reply.payload. */
  sendQuickReply(title: string, payload: string, metadata?: Record<string, unknown>): Promise<ChatMessage> {
    return this.send({ type: 'text', payload: title, quick_reply: { payload } }, metadata);
  }

  sendImage(url: string, metadata?: Record<string, unknown>): Promise<ChatMessage> {
    return this.send({ type: 'image', payload: { url } }, metadata);
  }

  sendPostback(payload: string): Promise<Record<string, never>> {
    return this.request(CLIENT_EVENTS.postback, { payload });
  }

  /** A custom notification: reaches the site's webhook as a `notification` event. */
  sendNotification(payload: unknown, metadata?: Record<string, unknown>): Promise<Record<string, never>> {
    return this.request(CLIENT_EVENTS.notificationClient, metadata ? { type: 'custom', payload, metadata } : { type: 'custom', payload });
  }

  /** Everything received so far was read (the site gets `messages_read`). */
  markRead(): Promise<Record<string, never>> {
    return this.request(CLIENT_EVENTS.messagesRead, {});
  }

  markDelivered(messageId: string): Promise<Record<string, never>> {
    return this.request(CLIENT_EVENTS.messageDelivered, { message_id: messageId });
  }

  /** History, newest first; pass the previous answer's cursor.next to page further back. */
  listMessages(cursor: string | null = null, max = 20): Promise<ListMessagesResponse> {
    return this.request(CLIENT_EVENTS.listMessages, { pagination: { max, cursor_next: cursor } });
  }

  /** Stores a file on the server and answers its public URL. */
  async uploadFile(data: Blob | ArrayBuffer | Uint8Array, name: string, mimeType?: string): Promise<FileUploadResponse> {
    const buffer = data instanceof Blob ? await data.arrayBuffer() : data;
    const type = mimeType ?? (data instanceof Blob && data.type ? data.type : 'application/octet-stream');
    return this.request<FileUploadResponse>(CLIENT_EVENTS.fileUpload, { name, mime_type: type, content_buffer: buffer });
  }

  /** Uploads a file and sends it as an image, video, audio or file message by its type. */
  async sendFile(file: File, metadata?: Record<string, unknown>): Promise<ChatMessage> {
    const { url } = await this.uploadFile(file, file.name, file.type || undefined);
    const kind = file.type.startsWith('image/') ? 'image' : file.type.startsWith('video/') ? 'video' : file.type.startsWith('audio/') ? 'audio' : 'file';
    return this.send({ type: kind, payload: { url } }, metadata);
  }
}
