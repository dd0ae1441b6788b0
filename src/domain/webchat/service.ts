import type { NlpField } from '../../schemas/nlp.js';
import type { Store } from '../../store/store.js';
import type { ContactRow } from '../../store/repos/contacts.js';
import type { WriteUnit } from '../../store/write-unit.js';
import { MissingReference } from '../../store/errors.js';
import type { StoredFiles } from '../../files/stored-files.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import { isoTime } from '../../lib/clock.js';
import { parseId } from '../../lib/ids.js';
import { isPlainObject } from '../../lib/json.js';
import { randomAlphanumeric, sha256Hex, type SecretBox } from '../../lib/crypto.js';
import { REJECTION, type ChatMessage, type FileUploadResponse, type ListMessagesResponse } from '../../schemas/chat.js';
import type { Content } from '../../schemas/content.js';
import type { EventType } from '../../schemas/events.js';
import { eventInserts, type Outbox } from '../events/outbox.js';
import { decodeChannel, type Channel } from '../channels/view.js';
import { originAllowed } from '../../lib/origins.js';
import { isWebChatType } from '../../channel-types/index.js';
import { ChatError, type Rejection } from './errors.js';
import { retryAfterSeconds, type ChatLimits } from './limits.js';
import { chatMessageFromRow } from './view.js';
import { incomingMessageUnit } from '../inbound/received-message.js';
import {
  parseFileUpload,
  parseListMessages,
  parseMessageClient,
  parseMessageDelivered,
  parseNotificationClient,
  parsePostback,
  requireObject,
} from './requests.js';

export interface ChatServiceDeps {
  store: Store;
  ids: IdGenerator;
  clock: Clock;
  box: SecretBox;
  outbox: Outbox;
  files: StoredFiles;
  maxUploadBytes: number;
  limits: ChatLimits;
  /** NLP on received text: the result for the message's `nlp`, or undefined (never throws, bounded by its time budget). */
  classify?(channelId: number, content: Content): Promise<NlpField | undefined>;
}

/** An accepted connection: who is chatting, on which channel. */
export interface ChatConnection {
  accountId: number;
  channelId: string;
  contactId: string;
  sessionId: string;
  /** The client's address as limits count it (lib/client-address.ts addressKey). */
  clientAddress: string;
}

export type HandshakeResult = { ok: true; connection: ChatConnection } | Rejection;

export interface HandshakeInput {
  channelId: string | undefined;
  sessionId: string | undefined;
  externalContactId: string | undefined;
  /** The page's origin (Origin header), checked against the channel's domains_whitelist. */
  origin: string | undefined;
  /** The client's address as limits count it. */
  clientAddress: string;
}

const SESSION_LENGTH = 40;
const SESSION_FORMAT = /^[A-Za-z0-9]{20,100}$/;
const EXTERNAL_ID_MAX = 200;

/**
 * The web chat's rules (contract.md §9), independent of socket.io: who may connect, sessions
 * (a session is a contact), and what each browser event stores and reports. Every change is
 * written together with the webhook event that reports it.
 */
export class ChatService {
  constructor(private readonly deps: ChatServiceDeps) {}

  private reject(code: Rejection['code'], message: string): Rejection {
    return { ok: false, code, message };
  }

  /** Whether a page on this origin may talk to this service_chat channel (the CORS answer of the chat transport). */
  async allowsOrigin(channelId: string | undefined, origin: string | undefined): Promise<boolean> {
    const id = parseId(channelId);
    const row = id === null ? undefined : await this.deps.store.channels.findAnyAccount(id);
    if (!row || !isWebChatType(row.type)) return false;
    return originAllowed((JSON.parse(row.settings) as Record<string, unknown>).domains_whitelist, origin);
  }

  async connect(input: HandshakeInput): Promise<HandshakeResult> {
    const { store, clock } = this.deps;
    const channelId = parseId(input.channelId);
    const row = channelId === null ? undefined : await store.channels.findAnyAccount(channelId);
    if (!row || !isWebChatType(row.type)) return this.reject(REJECTION.noSuchChannel, `Channel '${input.channelId ?? ''}' does not exist.`);
    const settings = JSON.parse(row.settings) as Record<string, unknown>;
    if (!originAllowed(settings.domains_whitelist, input.origin)) {
      return this.reject(
        REJECTION.originNotAllowed,
        `Origin '${input.origin ?? '(none)'}' is not allowed to connect to this channel; list it in the channel's domains_whitelist setting.`,
      );
    }
    const now = clock.now();
    const external =
      typeof input.externalContactId === 'string' && input.externalContactId.length > 0 && input.externalContactId.length <= EXTERNAL_ID_MAX
        ? input.externalContactId
        : null;

    if (input.sessionId && SESSION_FORMAT.test(input.sessionId)) {
      const hash = sha256Hex(input.sessionId);
      const session = await store.chat.findSession(hash);
      if (session && session.channel_id !== row.id)
        return this.reject(REJECTION.sessionOfOtherChannel, 'The session belongs to another channel; connect without it to start a new one.');
      if (session) {
        const contact = await store.contacts.find(row.account_id, row.id, session.contact_id);
        // An external id names the user; a session of someone else on this browser gives way to it.
        if (contact && (external === null || contact.external_id === external)) {
          await store.chat.touchSession(hash, now);
          return {
            ok: true,
            connection: {
              accountId: row.account_id,
              channelId: String(row.id),
              contactId: String(contact.id),
              sessionId: input.sessionId,
              clientAddress: input.clientAddress,
            },
          };
        }
      }
    }

    // Each new session may be a new contact of the channel: a client may start only so many.
    const wait = this.deps.limits.takeSession(input.clientAddress);
    if (wait !== null) {
      const retryAfter = retryAfterSeconds(wait);
      return {
        ...this.reject(REJECTION.tooManyConnections, `Too many new conversations from your network; try again in ${retryAfter ?? 60} seconds.`),
        retryAfter,
      };
    }
    const existing = external === null ? undefined : await store.contacts.findBy(row.account_id, row.id, 'external_id', external);
    return { ok: true, connection: { ...(await this.newSession(row.account_id, row.id, existing, external)), clientAddress: input.clientAddress } };
  }

  /** A new session, for a contact found by its external id or a new contact ("created on first contact"). */
  private async newSession(
    accountId: number,
    channelId: number,
    existing: ContactRow | undefined,
    external: string | null,
  ): Promise<Omit<ChatConnection, 'clientAddress'>> {
    const { store, ids, clock } = this.deps;
    const token = randomAlphanumeric(SESSION_LENGTH);
    const now = clock.now();
    const create = async (contact: ContactRow | undefined) =>
      store.transaction(async (tx) => {
        let contactId = contact?.id;
        if (contactId === undefined) {
          contactId = ids.nextNumber();
          await tx.contacts.insert({
            id: contactId,
            account_id: accountId,
            channel_id: channelId,
            external_id: external,
            phone_number: null,
            email: null,
            user_ref: null,
            name: null,
            profile: '{}',
            created_at: now,
            updated_at: now,
          });
        }
        await tx.chat.insertSession({
          token_hash: sha256Hex(token),
          account_id: accountId,
          channel_id: channelId,
          contact_id: contactId,
          created_at: now,
          last_seen_at: now,
        });
        return contactId;
      });
    let contactId: number;
    try {
      contactId = await create(existing);
    } catch (error) {
      // Two first connections with one external id at once: the other made the contact.
      const made = external === null ? undefined : await store.contacts.findBy(accountId, channelId, 'external_id', external);
      if (!made || existing) throw error;
      contactId = await create(made);
    }
    return { accountId, channelId: String(channelId), contactId: String(contactId), sessionId: token };
  }

  /** The channel as it is now (its webhook may have changed since the connection opened). */
  private async channelOf(conn: ChatConnection): Promise<Channel> {
    const row = await this.deps.store.channels.find(conn.accountId, Number(conn.channelId));
    if (!row) throw new ChatError(404, 'The channel no longer exists.');
    return decodeChannel(row, this.deps.box);
  }

  private eventRefs(channel: Channel, conn: ChatConnection) {
    return { channel: { id: channel.id, type: channel.type, name: channel.name }, contact: { id: conn.contactId } };
  }

  /** Writes events that report no stored change (postback, notification), after checking the contact still exists. */
  private async report(conn: ChatConnection, type: EventType, data: Record<string, unknown>): Promise<void> {
    const channel = await this.channelOf(conn);
    const contact = await this.deps.store.contacts.find(conn.accountId, Number(conn.channelId), Number(conn.contactId));
    if (!contact) throw new ChatError(404, 'The conversation was deleted; reconnect to start a new one.');
    const rows = this.deps.outbox.build({ type, channel, contactId: conn.contactId, data: { ...this.eventRefs(channel, conn), ...data } });
    await this.write({ insert: eventInserts(rows) });
    if (rows.delivery) this.deps.outbox.wake();
  }

  private async write(unit: WriteUnit): Promise<void> {
    try {
      await this.deps.store.batchWrite(unit);
    } catch (error) {
      if (error instanceof MissingReference) throw new ChatError(404, 'The conversation was deleted; reconnect to start a new one.');
      throw error;
    }
  }

  /** message_client: stored as a received message, reported as message_received, in one commit. */
  async receiveMessage(conn: ChatConnection, data: unknown): Promise<ChatMessage> {
    const { content, metadata } = parseMessageClient(data);
    const { ids, clock, outbox } = this.deps;
    const channel = await this.channelOf(conn);
    await this.keepUpload(conn, content);
    const nlp = await this.deps.classify?.(Number(channel.id), content as Content);
    const now = clock.now();
    const { row, unit } = incomingMessageUnit(outbox, {
      id: ids.nextNumber(),
      channel,
      contact: { id: conn.contactId, phoneNumber: null, userRef: null },
      direction: 'received',
      content: content as Content,
      metadata,
      externalId: null,
      sentAt: now,
      now,
      nlp,
    });
    const delivery = unit.insert.deliveries?.[0];
    await this.write(unit);
    if (delivery) outbox.wake();
    return chatMessageFromRow(row);
  }

  async receiveNotification(conn: ChatConnection, data: unknown): Promise<Record<string, never>> {
    const { payload } = parseNotificationClient(data);
    await this.report(conn, 'notification', { type: 'custom', payload });
    return {};
  }

  async receivePostback(conn: ChatConnection, data: unknown): Promise<Record<string, never>> {
    const payload = parsePostback(data);
    await this.report(conn, 'postback', { postback: { payload } });
    return {};
  }

  /** message_delivered: a message the site sent reached the browser (reported once per message). */
  async markDelivered(conn: ChatConnection, data: unknown): Promise<Record<string, never>> {
    const messageId = parseMessageDelivered(data);
    const { store, clock, outbox } = this.deps;
    const channel = await this.channelOf(conn);
    const now = clock.now();
    let wake = false;
    await store.transaction(async (tx) => {
      const changed = await tx.chat.markDelivered(conn.accountId, Number(conn.contactId), messageId, 'sent', now);
      if (!changed) {
        if (!(await tx.chat.messageExists(conn.accountId, Number(conn.contactId), messageId, 'sent')))
          throw new ChatError(404, `Message '${messageId}' is not a message of this conversation.`);
        return;
      }
      const appended = await outbox.append(tx, {
        type: 'messages_delivered',
        channel,
        contactId: conn.contactId,
        data: { ...this.eventRefs(channel, conn), messages: [{ id: String(messageId) }], delivered_timestamp: isoTime(now) },
      });
      wake = appended.deliveryId !== null;
    });
    if (wake) outbox.wake();
    return {};
  }

  /** messages_read: everything the site sent so far was read (reported when something changed). */
  async markRead(conn: ChatConnection, data: unknown): Promise<Record<string, never>> {
    if (data !== undefined && data !== null) requireObject(data, 'messages_read');
    const { store, clock, outbox } = this.deps;
    const channel = await this.channelOf(conn);
    const now = clock.now();
    let wake = false;
    await store.transaction(async (tx) => {
      const changed = await tx.chat.markRead(conn.accountId, Number(conn.contactId), 'sent', now, now);
      if (changed.read === 0) return;
      // Messages read before their delivery was acknowledged are reported delivered as well,
      // so each message the site sent gets its messages_delivered once.
      if (changed.newlyDelivered.length > 0) {
        const delivered = await outbox.append(tx, {
          type: 'messages_delivered',
          channel,
          contactId: conn.contactId,
          data: { ...this.eventRefs(channel, conn), messages: changed.newlyDelivered.map((id) => ({ id: String(id) })), delivered_timestamp: isoTime(now) },
        });
        wake = delivered.deliveryId !== null;
      }
      const appended = await outbox.append(tx, {
        type: 'messages_read',
        channel,
        contactId: conn.contactId,
        data: { ...this.eventRefs(channel, conn), last_read_timestamp: isoTime(now) },
      });
      wake ||= appended.deliveryId !== null;
    });
    if (wake) outbox.wake();
    return {};
  }

  async listMessages(conn: ChatConnection, data: unknown): Promise<ListMessagesResponse> {
    const { max, before } = parseListMessages(data);
    const { rows, hasMore } = await this.deps.store.chat.page(conn.accountId, Number(conn.contactId), before, max);
    const messages = rows.map(chatMessageFromRow);
    return { messages, cursor: { next: messages.at(-1)?.id ?? null, has_next: hasMore } };
  }

  /** A visitor's message naming their own upload keeps it; uploads no message names are swept. */
  private async keepUpload(conn: ChatConnection, content: { payload: unknown }): Promise<void> {
    const url = isPlainObject(content.payload) ? content.payload.url : undefined;
    const id = typeof url === 'string' ? this.deps.files.idFromUrl(url) : null;
    if (id !== null) await this.deps.store.files.keep(conn.accountId, Number(conn.contactId), id);
  }

  /**
   * file_upload: within the channel's storage quota and the hourly bytes of the conversation and
   * of the client's address; kept for good once a message names it, else removed after a while.
   */
  async uploadFile(conn: ChatConnection, data: unknown): Promise<FileUploadResponse> {
    const { store, files, clock, limits } = this.deps;
    const file = parseFileUpload(data, this.deps.maxUploadBytes);
    await this.channelOf(conn);
    if (!(await store.contacts.find(conn.accountId, Number(conn.channelId), Number(conn.contactId))))
      throw new ChatError(404, 'The conversation was deleted; reconnect to start a new one.');
    const size = file.bytes.byteLength;
    const quota = limits.settings.channelStorageBytes;
    if ((await store.files.bytesOfChannel(Number(conn.channelId))) + size > quota) {
      throw new ChatError(507, 'This chat cannot take more files at the moment; send your message as text, or try again later.', 'content_buffer');
    }
    limits.takeUploadBytes(conn.contactId, conn.clientAddress, size);
    try {
      const stored = await files.save({
        accountId: conn.accountId,
        channelId: Number(conn.channelId),
        contactId: Number(conn.contactId),
        name: file.name,
        mimeType: file.mimeType,
        bytes: file.bytes,
        expiresAt: clock.now() + limits.settings.unreferencedUploadTtlMs,
      });
      return { url: stored.url };
    } catch (error) {
      limits.refundUploadBytes(conn.contactId, conn.clientAddress, size);
      throw error;
    }
  }
}
