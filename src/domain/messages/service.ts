import type { Store } from '../../store/store.js';
import type { MessageRow } from '../../store/repos/messages.js';
import { MissingReference, UniqueViolation } from '../../store/errors.js';
import type { WriteUnit } from '../../store/write-unit.js';
import type { IdGenerator } from '../../lib/ids.js';
import { parseId } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import type { Content, Metadata, MessageView, SendMessageBody } from '../../schemas/content.js';
import type { MessageWithStatusView } from '../../schemas/message-status.js';
import { definitionOf, type ContactActivity } from '../../channel-types/index.js';
import { channelContextOf, type ConnectorRegistry } from '../../connectors/connector.js';
import type { Outbox } from '../events/outbox.js';
import type { Channel } from '../channels/view.js';
import type { ContactService, ResolvedContact } from '../contacts/service.js';
import type { ChannelCache } from './channel-cache.js';
import { parseAddress, type ContactAddress } from './addressing.js';
import { checkCapabilities, checkMetadata } from './channel-rules.js';
import { keyReusedError, requestHash } from './idempotency.js';
import { parseSendRequest, type SendRequest } from './request.js';
import { checkModeRules, sendingPath, sharedLimitError, unavailableError } from './sending.js';
import { messageViewFromRow } from './view.js';
import { sentMessageUnit, type SendOutcome } from './sent-message.js';
import { messageWithStatusView } from './status-view.js';
import { capabilitiesView, type CapabilitiesView } from './capabilities-view.js';
import { sendJobRows } from '../sending/send-job-row.js';
import type { DomainSignals } from '../signals.js';
import { checkFallbacks } from '../failover/request.js';
import { addChainStart } from '../failover/start.js';
import { linkedMetadata, type PlannedStep } from '../failover/plan.js';
import { failoverView } from '../failover/view.js';
import type { FailoverViewData } from '../../schemas/failover.js';

export type { StoredMessage } from '../signals.js';

export interface MessageServiceDeps {
  store: Store;
  ids: IdGenerator;
  clock: Clock;
  outbox: Outbox;
  connectors: ConnectorRegistry;
  channels: ChannelCache;
  contacts: ContactService;
  defaultPhoneRegion: string | undefined;
  /** Messages a channel in `shared` mode may send. */
  sharedModeMessageLimit: number;
  /** Told `jobsDue` after a send job committed, `messageStored` after each sent message committed. */
  signals: DomainSignals;
}

export interface SendResult {
  message: MessageView;
  /** The answer of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

interface StoredError {
  code?: string;
  message?: string;
}

function platformError(message: string): ApiError {
  return ApiError.of('platform_error', `The platform refused the message: ${message}`);
}

/**
 * Send Message, Get Message and List Messages. A send is checked completely before anything is
 * written; its rows (contact if new, message, message_echo event and delivery, send job) go to
 * the store as one write unit, grouped with concurrent sends (group commit). Nothing is read back.
 */
export class MessageService {
  private readonly sharedInFlight = new Map<string, number>();

  constructor(private readonly deps: MessageServiceDeps) {}

  parse(body: SendMessageBody): SendRequest {
    return parseSendRequest(body, { defaultRegion: this.deps.defaultPhoneRegion });
  }

  /** `correlationId`: the request's id, kept with the message's echo event and send job (lib/correlation.ts). */
  async send(accountId: number, body: SendMessageBody, idempotencyKey?: string, correlationId?: string): Promise<SendResult> {
    const hash = idempotencyKey === undefined ? null : requestHash(body);
    if (idempotencyKey !== undefined) {
      const earlier = await this.replay(accountId, idempotencyKey, hash);
      if (earlier) return earlier;
    }
    const request = this.parse(body);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.sendOnce(accountId, request, idempotencyKey ?? null, hash, correlationId ?? null);
      } catch (error) {
        if (error instanceof UniqueViolation && idempotencyKey !== undefined && error.columns.includes('idempotency_key')) {
          // A concurrent request with the same key committed first: answer as it did.
          const earlier = await this.replay(accountId, idempotencyKey, hash);
          if (earlier) return earlier;
        }
        // The contact or channel went away meanwhile (another instance): look them up again, once.
        if (error instanceof MissingReference && attempt === 0) continue;
        throw error;
      }
    }
  }

  /** What the channel's type can send, and what a send does on it now. */
  async capabilities(accountId: number, channelId: number): Promise<CapabilitiesView> {
    return capabilitiesView(await this.deps.channels.get(accountId, channelId), this.deps.connectors);
  }

  async get(accountId: number, id: number): Promise<MessageWithStatusView> {
    const row = await this.deps.store.messages.find(accountId, id);
    if (!row) throw ApiError.notFound('Message');
    const view = messageWithStatusView(row);
    const failover = await this.failoverOf(accountId, row);
    return failover ? { ...view, failover } : view;
  }

  /** The chain a message is a step of (sent with fallbacks: its metadata names the chain), else null. */
  private async failoverOf(accountId: number, row: MessageRow): Promise<FailoverViewData | null> {
    if (row.metadata === null || !row.metadata.includes('"failover"')) return null;
    const [link] = await this.deps.store.failovers.linksOf([row.id]);
    const chain = link ? await this.deps.store.failovers.find(accountId, link.failover_id) : undefined;
    if (!chain) return null;
    return failoverView(chain, await this.deps.store.failovers.steps(chain.id));
  }

  /** A contact's conversation, newest first. */
  async listForContact(
    accountId: number,
    channelId: number,
    contactId: number,
    max: number,
    offset: number,
  ): Promise<{ messages: MessageWithStatusView[]; total: number }> {
    await this.deps.channels.get(accountId, channelId);
    const contact = await this.deps.store.contacts.find(accountId, channelId, contactId);
    if (!contact) throw ApiError.notFound('Contact');
    const { rows, total } = await this.deps.store.messages.listForContact(accountId, channelId, contactId, max, offset);
    return { messages: rows.map(messageWithStatusView), total };
  }

  private async replay(accountId: number, key: string, hash: string | null): Promise<SendResult | null> {
    const row = await this.deps.store.messages.findByIdempotencyKey(accountId, key);
    if (!row) return null;
    if (row.request_hash !== hash) throw keyReusedError(key);
    const failover = await this.failoverOf(accountId, row);
    // The whole chain answers again as it stands: its first step's failure is not the request's.
    if (failover) return { message: { ...messageViewFromRow(row), failover }, replayed: true };
    if (row.status === 'failed') {
      const stored = row.error ? (JSON.parse(row.error) as StoredError) : {};
      throw platformError(stored.message ?? 'unknown error');
    }
    return { message: messageViewFromRow(row), replayed: true };
  }

  /** Files the platform will be sent (e-mail attachments), checked before the message is stored: a refused one is a 422 now, not a failure later. */
  private async checkFiles(channel: Channel, content: Content): Promise<void> {
    const checker = this.deps.connectors.role(channel.type, 'contentCheck');
    if (!checker) return;
    const checked = await checker.checkContent(channelContextOf(channel), content);
    if (!checked.ok && !checked.retryable) throw ApiError.invalid(checked.field ?? 'content.payload', null, checked.message);
  }

  private async channelOf(accountId: number, raw: string): Promise<Channel> {
    const id = parseId(raw);
    const channel = id === null ? undefined : await this.deps.channels.find(accountId, id);
    if (!channel) throw ApiError.invalid('channel.id', raw, `Channel '${raw}' does not exist.`);
    return channel;
  }

  /** Everything a send is checked against before anything is written or sent, and the path it takes. */
  private async checkSend(accountId: number, request: SendRequest) {
    const { deps } = this;
    const channel = await this.channelOf(accountId, request.channelId);
    const parts = checkCapabilities(channel.type, request.content, request.metadata);
    const metadata = checkMetadata(channel.type, request.metadata);
    const address = parseAddress(channel.type, request.contact, deps.defaultPhoneRegion);
    const path = sendingPath(channel, deps.connectors);
    // The platform-side state of the channel first: what the client must change (422) before
    // what the service cannot do yet (502).
    checkModeRules(channel, address);
    if (path === 'unavailable') throw unavailableError(channel);
    if (path === 'queued') await this.checkFiles(channel, request.content);
    return { channel, parts, metadata, address, path };
  }

  private async sendOnce(
    accountId: number,
    request: SendRequest,
    idempotencyKey: string | null,
    hash: string | null,
    correlationId: string | null,
  ): Promise<SendResult> {
    const { deps } = this;
    const { channel, parts, metadata, address, path } = await this.checkSend(accountId, request);
    const releaseShared = channel.mode === 'shared' ? await this.reserveShared(channel) : null;
    try {
      const contact = await deps.contacts.resolveForSend(channel, address);
      const plan = request.fallbacks ? await this.planFallbacks(accountId, request, { channel, metadata, address }, contact) : null;
      const id = deps.ids.nextNumber();
      const now = deps.clock.now();
      const { content } = request;
      const sentMetadata = plan ? linkedMetadata(metadata, id, 0) : metadata;
      const outcome: SendOutcome =
        path === 'direct'
          ? await this.sendDirect(channel, contact, address, { id: String(id), content, metadata: sentMetadata })
          : { status: path === 'queued' ? 'queued' : 'sent', externalId: null };
      const sent = { id, channel, contact, content, metadata: sentMetadata, parts, outcome, idempotencyKey, requestHash: hash, correlationId, now };
      const { row, view, unit } = sentMessageUnit(deps.outbox, sent);
      if (path === 'queued') unit.insert.jobs = this.sendJobs(channel, id, contact.row.id, sentMetadata, correlationId, now);
      const failover = plan
        ? addChainStart(unit, { messageId: id, accountId, channel, contactId: contact.row.id, status: row.status, plan, jobId: deps.ids.nextNumber(), now })
        : null;
      await this.commit(unit, row, channel, contact);
      if (unit.insert.deliveries) deps.outbox.wake();
      if (path === 'queued' || failover) deps.signals.emit('jobsDue');
      if (outcome.status === 'failed' && !failover) throw platformError(outcome.failure.message);
      if (outcome.status !== 'failed') deps.signals.emit('messageStored', { channel, contactId: String(contact.row.id), message: view });
      return { message: failover ? { ...view, failover } : view, replayed: false };
    } finally {
      releaseShared?.();
    }
  }

  /** The fallbacks of a Send Message, checked now against their channels (docs/failover.md). */
  private async planFallbacks(
    accountId: number,
    request: SendRequest,
    first: { channel: Channel; metadata: Metadata | undefined; address: ContactAddress },
    contact: ResolvedContact,
  ): Promise<PlannedStep[]> {
    return checkFallbacks(
      request.fallbacks ?? [],
      { ...first, content: request.content, contact: { phone_number: contact.row.phone_number, email: contact.row.email } },
      {
        connectors: this.deps.connectors,
        defaultRegion: this.deps.defaultPhoneRegion,
        channelOf: (raw) => this.channelOf(accountId, raw),
        checkFiles: (channel, content) => this.checkFiles(channel, content),
      },
    );
  }

  /** The send job of a queued message (and its delivery deadline's, for types whose messages have a time to live). */
  private sendJobs(channel: Channel, messageId: number, contactId: number, metadata: Metadata | undefined, correlationId: string | null, now: number) {
    const { ids } = this.deps;
    const job = {
      id: ids.nextNumber(),
      accountId: channel.accountId,
      channelId: Number(channel.id),
      channelType: channel.type,
      channelConfig: channel.config,
      messageId,
      contactId,
      metadata,
      correlationId,
    };
    return sendJobRows(job, now, () => ids.nextNumber());
  }

  /** Stores a send's unit; the contact is confirmed once committed, and the caches of a contact or channel gone meanwhile are dropped. */
  private async commit(unit: WriteUnit, row: MessageRow, channel: Channel, contact: ResolvedContact): Promise<void> {
    const { deps } = this;
    try {
      await deps.store.batchWrite(unit).catch((error: unknown) => {
        // The platform took the message but answered an id the channel has stored already (a
        // platform's replay or fault): keep the message, without that id, rather than lose it.
        if (!(error instanceof UniqueViolation && error.columns.includes('external_id') && row.external_id !== null)) throw error;
        row.external_id = null;
        return deps.store.batchWrite(unit);
      });
    } catch (error) {
      if (error instanceof MissingReference) {
        deps.contacts.forget(contact);
        deps.channels.forget(Number(channel.id));
      }
      throw error;
    }
    deps.contacts.confirm(contact);
  }

  /** The platform is called inside the request (synchronous types). */
  private async sendDirect(
    channel: Channel,
    contact: ResolvedContact,
    address: ContactAddress,
    message: { id: string; content: Content; metadata: Metadata | undefined },
  ): Promise<SendOutcome> {
    const sender = this.deps.connectors.role(channel.type, 'sender');
    if (!sender) throw unavailableError(channel);
    const metadata = await this.directMetadata(channel, contact, address, message.metadata);
    const r = contact.row;
    const names =
      address.form === 'phone_number'
        ? { ...(address.firstName ? { firstName: address.firstName } : {}), ...(address.lastName ? { lastName: address.lastName } : {}) }
        : {};
    const sent = await sender.send(
      channelContextOf(channel),
      { id: String(r.id), externalId: r.external_id, phoneNumber: r.phone_number, userRef: r.user_ref, email: r.email, name: r.name, ...names },
      { id: message.id, content: message.content, ...(metadata ? { metadata } : {}) },
    );
    // The message row holds one platform id: the synchronous platforms give one per send.
    return sent.ok ? { status: 'sent', externalId: sent.value.externalIds[0] ?? null } : { status: 'failed', failure: sent };
  }

  /**
   * The type's metadata defaults before a direct send (e.g. a tag or a message type the platform
   * needs); the contact's last activity is read only when the defaults need it.
   */
  private async directMetadata(channel: Channel, contact: ResolvedContact, address: ContactAddress, metadata: Metadata | undefined) {
    const defaults = definitionOf(channel.type).send.directDefaults;
    if (!defaults) return metadata;
    const facts = { byPhoneNumber: address.form === 'phone_number', contactKnown: Boolean(contact.row.external_id) };
    let activity: ContactActivity | null = null;
    if (defaults.needsActivity(metadata, facts)) {
      activity = contact.isNew ? { lastInboundAt: null, lastSentAt: null } : await this.deps.store.conversation.lastActivity(channel.accountId, contact.row.id);
    }
    return defaults.apply(metadata, facts, this.deps.clock.now(), activity);
  }

  /** How much of its `shared` mode allowance a channel used (Get Channel shows it). */
  async sharedUsage(channel: Pick<Channel, 'id' | 'accountId'>): Promise<{ messages_sent: number; message_limit: number }> {
    const sent = await this.deps.store.messages.countSent(channel.accountId, Number(channel.id));
    return { messages_sent: sent, message_limit: this.deps.sharedModeMessageLimit };
  }

  /** The `shared` mode allowance: counts what the channel sent plus the sends in flight here. */
  private async reserveShared(channel: Channel): Promise<() => void> {
    const key = channel.id;
    const inFlight = this.sharedInFlight.get(key) ?? 0;
    this.sharedInFlight.set(key, inFlight + 1);
    const release = () => {
      const n = (this.sharedInFlight.get(key) ?? 1) - 1;
      if (n <= 0) this.sharedInFlight.delete(key);
      else this.sharedInFlight.set(key, n);
    };
    try {
      const sent = await this.deps.store.messages.countSent(channel.accountId, Number(channel.id));
      if (sent + inFlight >= this.deps.sharedModeMessageLimit) throw sharedLimitError(channel, this.deps.sharedModeMessageLimit);
      return release;
    } catch (error) {
      release();
      throw error;
    }
  }
}
