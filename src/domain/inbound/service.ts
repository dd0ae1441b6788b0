import type { Repos, Store } from '../../store/store.js';
import type { ContactRow } from '../../store/repos/contacts.js';
import type { WriteUnit } from '../../store/write-unit.js';
import type { MessagesTable } from '../../store/schema.js';
import { MissingReference, UniqueViolation } from '../../store/errors.js';
import type { StoredFiles } from '../../files/stored-files.js';
import type { IdGenerator } from '../../lib/ids.js';
import { parseId } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import { isoTime } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { Logger } from '../../lib/logger.js';
import { ApiError } from '../../lib/errors.js';
import { isChannelType, type ChannelType } from '../../schemas/channel-types.js';
import { capabilitiesOf } from '../../channel-types/index.js';
import type { Card, Content } from '../../schemas/content.js';
import type { EventType } from '../../schemas/events.js';
import type { NlpField } from '../../schemas/nlp.js';
import {
  channelContextOf,
  declaresEndpoint,
  type AppInbound,
  type ConnectorRegistry,
  type InboundCall,
  type InboundEvent,
  type InboundParse,
  type InboundUser,
  type SignatureBinding,
} from '../../connectors/connector.js';
import type { EventInput, Outbox } from '../events/outbox.js';
import { decodeChannel, type Channel } from '../channels/view.js';
import { InboundContacts } from './contacts.js';
import { MediaUnavailable, neutralContent } from './media.js';
import { incomingMessageUnit } from './received-message.js';
import { channelRef, contactRef } from './refs.js';
import { SharedNumberReplies } from './shared-number.js';
import { refreshContact } from './user-profile.js';
import { messageFailedCode } from '../../connectors/failure-codes.js';
import { messageFailedEvent, storedFailure } from '../messages/failed-event.js';
import type { DomainSignals } from '../signals.js';

export interface InboundServiceDeps {
  store: Store;
  ids: IdGenerator;
  clock: Clock;
  box: SecretBox;
  outbox: Outbox;
  connectors: ConnectorRegistry;
  files: StoredFiles;
  defaultPhoneRegion: string | undefined;
  /** `{base_url}`, the service's public address ending in /v1: the full URL of an inbound call is built from it. */
  publicUrl: string;
  /** Told `contactChanged` when an inbound event changed a contact's addressing (the send path caches contacts). */
  signals: DomainSignals;
  /** NLP on received text: the result for the message's `nlp`, or undefined (never throws, bounded by its time budget). */
  classify?(channelId: number, content: Content): Promise<NlpField | undefined>;
  logger?: Pick<Logger, 'warn' | 'info'>;
  /** Told of each platform call's verdict by channel type (metrics; `unknown` when no channel or type was found). */
  onVerdict?(type: string, verdict: InboundVerdict): void;
}

/** What became of a platform's call: taken, refused by its check, naming nothing, to be retried, or failed here. */
export type InboundVerdict = 'accepted' | 'refused' | 'not_found' | 'unavailable' | 'failed';

function verdictOf(error: unknown, checked: boolean): InboundVerdict {
  if (!(error instanceof ApiError)) return 'failed';
  if (error.status === 503) return 'unavailable';
  // A channel's failed check answers 404 like a missing channel; the count tells them apart.
  if (error.status === 404) return checked ? 'refused' : 'not_found';
  return error.status < 500 ? 'refused' : 'failed';
}

/** What the platform is answered. */
export interface InboundAnswer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * An inbound call's correlation (lib/correlation.ts): `requestId` (the call's own request id) goes
 * with the events the call makes; a report on a message the service sent carries that message's
 * id instead, noted in `messageCorrelationId` for the call's log line, so the report and its
 * webhook delivery are found with the send that made the message.
 */
export interface InboundTrace {
  requestId: string | null;
  messageCorrelationId?: string | null;
}

const NO_TRACE: InboundTrace = { requestId: null };

const OK: InboundAnswer = { status: 200, contentType: 'text/plain; charset=utf-8', body: 'EVENT_RECEIVED' };

function channelNotFound(): ApiError {
  return ApiError.notFound('Channel');
}

function refusal(parsed: Extract<InboundParse, { ok: false }>): ApiError {
  const code = parsed.status === 400 ? 'bad_request' : parsed.status === 401 ? 'unauthorized' : parsed.status === 404 ? 'not_found' : 'forbidden';
  return ApiError.of(code, parsed.message);
}

/**
 * Everything platforms tell the service, for every platform type: a received message (stored with
 * its re-hosted attachments and reported as `message_received`), a message someone else sent
 * (`message_echo`), delivery and read receipts, button presses (`postback`) and opt-ins. Each change
 * is written with its event in one commit. A call the platform makes again (its retry, or a replay
 * of a signed call) makes no second event, on any instance: a message is stored once by the unique
 * (channel, direction, external id) key; a postback or opt-in by the unique (channel, inbound_key)
 * key, from the connector's `eventKey`; a receipt reports only marks that change. A signature that
 * does not cover the body (inbound mail) is bound to the first body seen with it, in the store
 * (`binding`), so it cannot carry another body on any instance. A status report
 * of an asynchronous platform changes a sent message once (delivered, or failed); opt-outs are
 * answered and logged, not stored yet. A reply to a number several channels send from goes to the
 * channel that last sent to its sender (shared-number.ts).
 */
export class InboundService {
  readonly contacts: InboundContacts;
  private readonly sharedNumber: SharedNumberReplies;
  /** Messages being stored now, by channel and platform id: a repeated callback waits for the first, then finds the message stored. */
  private readonly storing = new Map<string, Promise<void>>();

  constructor(private readonly deps: InboundServiceDeps) {
    this.contacts = new InboundContacts({
      store: deps.store,
      ids: deps.ids,
      clock: deps.clock,
      defaultPhoneRegion: deps.defaultPhoneRegion,
      onChanged: (contactId) => deps.signals.emit('contactChanged', { contactId }),
    });
    this.sharedNumber = new SharedNumberReplies({ store: deps.store, box: deps.box, phoneOf: (raw) => this.contacts.phoneOf(raw) });
  }

  /**
   * The full URL a platform called, as received: the public address (which ends in /v1) and the
   * request's path and query as they arrived. Platforms that sign the URL hash exactly this.
   */
  callUrl(requestUrl: string): string {
    let path = requestUrl;
    // An absolute-form request line (`POST http://host/v1/...`) names the same path.
    if (!path.startsWith('/')) {
      try {
        const parsed = new URL(path);
        path = parsed.pathname + parsed.search;
      } catch {
        path = '/';
      }
    }
    const base = this.deps.publicUrl.replace(/\/+$/, '');
    return base.endsWith('/v1') && path.startsWith('/v1/') ? base + path.slice('/v1'.length) : new URL(base).origin + path;
  }

  private appInbound(type: string): { type: ChannelType; inbound: AppInbound } {
    if (!isChannelType(type)) throw ApiError.notFound();
    const inbound = this.deps.connectors.role(type, 'appInbound');
    if (!inbound) throw ApiError.notFound();
    return { type, inbound };
  }

  /** GET on an app's inbound URL: the platform's subscription handshake. */
  handshake(type: string, call: InboundCall): InboundAnswer {
    const app = this.appInbound(type);
    const answer = this.deps.connectors.role(app.type, 'handshake')?.answerHandshake(call);
    if (!answer) throw ApiError.notFound();
    return { status: answer.status, contentType: 'text/plain; charset=utf-8', body: answer.body };
  }

  /** One callback URL for a whole platform app: each event names its channel (e.g. the page). */
  async receiveForApp(type: string, call: InboundCall, trace: InboundTrace = NO_TRACE): Promise<InboundAnswer> {
    const known = isChannelType(type);
    try {
      const answer = await this.appCall(type, call, trace);
      this.deps.onVerdict?.(type, 'accepted');
      return answer;
    } catch (error) {
      this.deps.onVerdict?.(known ? type : 'unknown', verdictOf(error, false));
      throw error;
    }
  }

  private async appCall(type: string, call: InboundCall, trace: InboundTrace): Promise<InboundAnswer> {
    const app = this.appInbound(type);
    const parsed = app.inbound.parse(call);
    if (!parsed.ok) throw refusal(parsed);
    if (parsed.binding && !(await this.claimBinding(parsed.binding)))
      throw refusal({ ok: false, status: 401, message: 'The signature was used with another body.' });
    const field = app.inbound.channelKeyField;
    const byKey = new Map<string, InboundEvent[]>();
    for (const event of parsed.events) {
      if (event.channelKey === undefined) continue;
      const list = byKey.get(event.channelKey) ?? [];
      list.push(event);
      byKey.set(event.channelKey, list);
    }
    for (const [key, events] of byKey) {
      const rows = await this.deps.store.conversation.channelsByConfigValue(type, field, key);
      for (const row of rows) {
        const channel = decodeChannel(row, this.deps.box);
        if (String(channel.config[field]) === key) await this.receive(channel, events, trace);
      }
    }
    return parsed.reply ? { status: 200, ...parsed.reply } : OK;
  }

  /**
   * A channel's own callback URL. The URL names a channel without any account's token, so it must
   * not tell whether a channel exists: a malformed, unknown or deleted id, a channel whose type
   * has no such URL, an endpoint or method its connector does not declare, and a call that fails
   * the channel's own check (a secret of another channel or of nobody) all get the same 404. Only
   * a call the channel's check accepted learns more (400 for an unreadable body).
   */
  async receiveForChannel(rawChannelId: string, endpoint: string, call: InboundCall, trace: InboundTrace = NO_TRACE): Promise<InboundAnswer> {
    const seen: { type: string; checked: boolean } = { type: 'unknown', checked: false };
    try {
      const answer = await this.channelCall(rawChannelId, endpoint, call, seen, trace);
      this.deps.onVerdict?.(seen.type, 'accepted');
      return answer;
    } catch (error) {
      this.deps.onVerdict?.(seen.type, verdictOf(error, seen.checked));
      throw error;
    }
  }

  private async channelCall(
    rawChannelId: string,
    endpoint: string,
    call: InboundCall,
    seen: { type: string; checked: boolean },
    trace: InboundTrace,
  ): Promise<InboundAnswer> {
    const id = parseId(rawChannelId);
    const row = id === null ? undefined : await this.deps.store.channels.getAnyAccount(id);
    if (!row) throw channelNotFound();
    const channel = decodeChannel(row, this.deps.box);
    const inbound = this.deps.connectors.role(channel.type, 'channelInbound');
    if (!inbound || !declaresEndpoint(inbound.endpoints, endpoint, call.method)) throw channelNotFound();
    seen.type = channel.type;
    seen.checked = true;
    const parsed = inbound.parse({ ...call, endpoint }, channelContextOf(channel));
    if (!parsed.ok) throw parsed.status === 400 ? refusal(parsed) : channelNotFound();
    // A signature over another body than the one first seen with it fails like a wrong signature.
    if (parsed.binding && !(await this.claimBinding(parsed.binding))) throw channelNotFound();
    await this.receive(channel, parsed.events, trace);
    return parsed.reply ? { status: 200, ...parsed.reply } : OK;
  }

  /**
   * The endpoint's streamed-form limit (InboundEndpoint.streamedForm) when the call names a
   * channel whose connector declares one; null otherwise (the body is read whole, within the
   * service's body limit). Answers nothing about whether the channel exists.
   */
  async streamedFormOf(rawChannelId: string, endpoint: string, method: string): Promise<{ maxBytes: number } | null> {
    const id = parseId(rawChannelId);
    const row = id === null ? undefined : await this.deps.store.channels.getAnyAccount(id);
    if (!row || !isChannelType(row.type)) return null;
    const inbound = this.deps.connectors.role(row.type, 'channelInbound');
    const declared = inbound?.endpoints.find((e) => e.name === endpoint && (e.methods as readonly string[]).includes(method));
    return declared?.streamedForm ?? null;
  }

  /** Binds the body to its signature in the store (every instance, across restarts): false when another body holds it. */
  private claimBinding(binding: SignatureBinding): Promise<boolean> {
    return this.deps.store.signatureBindings.claim(binding.key, binding.bodyDigest, binding.expiresAt, this.deps.clock.now());
  }

  /** Applies a channel's events in order. A file the platform cannot hand over now fails the call (503), so the platform retries. */
  async receive(channel: Channel, events: readonly InboundEvent[], trace: InboundTrace = NO_TRACE): Promise<void> {
    try {
      for (const event of events) await this.one(channel, event, trace);
    } catch (error) {
      if (error instanceof MediaUnavailable)
        throw ApiError.of('unavailable', `A file of the message could not be fetched from the platform yet: ${error.message}`);
      throw error;
    }
  }

  private async one(channel: Channel, event: InboundEvent, trace: InboundTrace): Promise<void> {
    switch (event.kind) {
      case 'message':
        return this.message(channel, event, 'received', trace);
      case 'echo':
        return this.message(channel, event, 'sent', trace);
      case 'delivered':
        return this.delivered(channel, event, trace);
      case 'read':
        return this.read(channel, event, trace);
      case 'postback':
        return this.postback(channel, event, trace);
      case 'opt_in':
        return this.optIn(channel, event, trace);
      case 'status':
        return this.status(channel, event, trace);
      case 'opt_out':
        return this.notStoredYet(channel, event);
      default:
        return unknownEvent(event);
    }
  }

  /**
   * Opt-outs come from the asynchronous platforms; storing them (the contact's opt-out) is still
   * to come. Until then such a report is answered 200, so the platform does not retry it, and logged.
   */
  private notStoredYet(channel: Channel, event: Extract<InboundEvent, { kind: 'opt_out' }>): void {
    this.deps.logger?.info(
      { channel: channel.id, kind: event.kind, reason: event.reason },
      `inbound ${event.kind} answered and not stored: this service does not store opt-outs yet`,
    );
  }

  /** The channel's sent message a report names by our own id (its reference), when the platform echoes one. */
  private async byReference(channel: Channel, reference: string | undefined): Promise<MessagesTable | undefined> {
    const id = parseId(reference);
    if (id === null) return undefined;
    return this.deps.store.conversation.findSentById(channel.accountId, Number(channel.id), id);
  }

  /**
   * A platform's report on a message the service sent, found by the platform's id of it (or by
   * our reference, for a report that comes before the send's result was recorded):
   * `delivered` sets its `delivered` time and reports `messages_delivered` (delivered_timestamp:
   * when the service got the report, as the specification says for mobile); `failed` and
   * `expired` make it `failed` and report `message_failed` (code 4 for expired, else the type's
   * code of the platform's, 1 on mobile). Each change is conditional on the message's state and
   * written with its event: a repeated or late report (after the message was delivered or failed)
   * changes nothing. `sent` (accepted, buffered) changes nothing either: the message is `sent` already.
   */
  private async status(channel: Channel, event: Extract<InboundEvent, { kind: 'status' }>, trace: InboundTrace): Promise<void> {
    const { store, clock, outbox } = this.deps;
    const report = event.report;
    if (report.status === 'sent') return;
    const channelId = Number(channel.id);
    const message =
      (await store.conversation.findByExternalId(channel.accountId, channelId, 'sent', report.messageExternalId)) ??
      (await this.byReference(channel, report.messageReference));
    const contact = message ? await store.contacts.get(channel.accountId, channelId, message.contact_id) : undefined;
    if (!message || !contact) {
      this.deps.logger?.info(
        { channel: channel.id, message: report.messageExternalId, status: report.status },
        'status report of a message this service does not know: ignored',
      );
      return;
    }
    const correlationId = message.correlation_id ?? trace.requestId;
    if (message.correlation_id) trace.messageCorrelationId = message.correlation_id;
    const now = clock.now();
    let wake = false;
    await store.transaction(async (tx) => {
      let input: EventInput | null = null;
      if (report.status === 'delivered') {
        if (await tx.messages.markReportedDelivered(channel.accountId, message.id, now, report.messageExternalId))
          input = deliveredEvent(channel, contact, [message.id], now);
      } else {
        const code = report.status === 'expired' ? 4 : messageFailedCode(channel.type, report.platformCode ?? '');
        const failure = storedFailure(code, report.reason);
        // Reported before the send's result was recorded: failed from `queued`, and the job's `sent` mark then changes nothing.
        const from = message.status === 'queued' ? 'queued' : 'sent';
        if (await tx.messages.markFailed(channel.accountId, message.id, failure, from)) input = messageFailedEvent(channel, contact, message.id, code);
      }
      if (input) wake = (await outbox.append(tx, { ...input, correlationId })).deliveryId !== null;
    });
    if (wake) outbox.wake();
  }

  /** Writes one unit (rows with their event) and wakes the webhook workers. False when the unit was a duplicate or its contact is gone. */
  private async write(unit: WriteUnit, trace: InboundTrace): Promise<boolean> {
    if (trace.requestId !== null) for (const event of unit.insert.events ?? []) event.correlation_id = trace.requestId;
    try {
      await this.deps.store.batchWrite(unit);
    } catch (error) {
      if (error instanceof UniqueViolation || error instanceof MissingReference) return false;
      throw error;
    }
    if (unit.insert.deliveries && unit.insert.deliveries.length > 0) this.deps.outbox.wake();
    return true;
  }

  /**
   * The unit of an event that stores no message. With the platform's key of the event, the
   * unique (channel, inbound_key) index makes a repeated call a duplicate (dropped by `write`), on
   * every instance alike.
   */
  private unitFor(channel: Channel, contact: ContactRow, type: EventType, data: Record<string, unknown>, eventKey: string | undefined): WriteUnit {
    const { event, delivery } = this.deps.outbox.build({ type, channel, contactId: contact.id, data });
    if (eventKey !== undefined) event.inbound_key = `${type}:${eventKey}`;
    return { insert: { events: [event], ...(delivery ? { deliveries: [delivery] } : {}) } };
  }

  /**
   * The payload of a quick reply whose title the user sent as text (platforms that deliver only the
   * title), or, where quick replies go out as numbered choices in the text (SMS), its number.
   */
  private async quickReplyPayload(contact: ContactRow, text: string, numbered: boolean): Promise<string | undefined> {
    const last = await this.deps.store.conversation.lastSent(contact.account_id, contact.id);
    if (!last) return undefined;
    const content = JSON.parse(last.content) as Content;
    const choices = (content.quick_replies ?? []).flatMap((q) => (q.type === 'text' ? [q] : []));
    const number = numbered ? /^\s*(\d{1,2})\s*[.)]?\s*$/.exec(text) : null;
    const match = choices.find((q) => q.title === text) ?? (number ? choices[Number(number[1]) - 1] : undefined);
    return match?.payload;
  }

  private async message(
    called: Channel,
    event: Extract<InboundEvent, { kind: 'message' | 'echo' }>,
    direction: 'received' | 'sent',
    trace: InboundTrace,
  ): Promise<void> {
    const channel =
      event.kind === 'message'
        ? await this.sharedNumber.channelFor(called, { externalId: event.externalId, to: event.to, phoneNumber: event.user.phoneNumber })
        : called;
    // The same message delivered twice at once (a platform's retry while the first call still
    // runs) is stored, and its text classified, once: the second waits, then finds it stored.
    const key = `${channel.id}:${direction}:${event.externalId}`;
    for (let earlier = this.storing.get(key); earlier; earlier = this.storing.get(key)) await earlier.catch(() => undefined);
    const storing = this.storeMessage(channel, event, direction, trace);
    this.storing.set(key, storing);
    try {
      await storing;
    } finally {
      if (this.storing.get(key) === storing) this.storing.delete(key);
    }
  }

  private async storeMessage(
    channel: Channel,
    event: Extract<InboundEvent, { kind: 'message' | 'echo' }>,
    direction: 'received' | 'sent',
    trace: InboundTrace,
  ): Promise<void> {
    const { store, ids, clock } = this.deps;
    const contact = await this.contacts.resolve(channel, event.user);
    if (!contact) return;
    const channelId = Number(channel.id);
    // A delivery of a message already stored is answered without fetching its files again.
    if (await store.conversation.findByExternalId(channel.accountId, channelId, direction, event.externalId)) return;
    const media = this.deps.connectors.role(channel.type, 'media') ?? null;
    const matched =
      direction === 'received' && event.content.type === 'text' && event.content.matchQuickReplies && event.content.quickReplyPayload === undefined
        ? await this.quickReplyPayload(contact, event.content.text, capabilitiesOf(channel.type).quickReplies === 'text')
        : undefined;
    const content = await neutralContent(
      event.content,
      matched,
      { media, channel: channelContextOf(channel), files: this.deps.files, accountId: channel.accountId, channelId, contactId: contact.id },
      (message) => this.deps.logger?.warn({ channel: channel.id, message: event.externalId }, `attachment kept at the platform's URL: ${message}`),
    );
    const nlp = direction === 'received' ? await this.deps.classify?.(channelId, content) : undefined;
    const now = clock.now();
    const metadata =
      event.kind === 'echo' ? (event.platformMetadata !== undefined ? { platform_metadata: event.platformMetadata } : null) : (event.metadata ?? null);
    const { unit } = incomingMessageUnit(this.deps.outbox, {
      id: ids.nextNumber(),
      channel,
      contact: { id: contact.id, phoneNumber: contact.phone_number, userRef: contact.user_ref, email: contact.email },
      direction,
      content,
      metadata,
      externalId: event.externalId,
      sentAt: event.at ?? now,
      now,
      nlp,
    });
    await this.write(unit, trace);
  }

  /** `delivered_timestamp`: the time the platform gives for the delivery, else the time the callback arrived. */
  private async delivered(channel: Channel, event: Extract<InboundEvent, { kind: 'delivered' }>, trace: InboundTrace): Promise<void> {
    await this.receipt(channel, event.user, event.at, trace, async (tx, contact, at) => {
      const ids = await tx.conversation.markDelivered(channel.accountId, contact.id, event.messageIds, event.watermark, at);
      return ids.length === 0 ? [] : [deliveredEvent(channel, contact, ids, at)];
    });
  }

  /** `last_read_timestamp` is the platform's watermark: everything delivered before it was read. */
  private async read(channel: Channel, event: Extract<InboundEvent, { kind: 'read' }>, trace: InboundTrace): Promise<void> {
    await this.receipt(channel, event.user, event.at, trace, async (tx, contact, at) => {
      // A platform that names the message read: everything sent up to that message was read.
      const named =
        event.messageExternalId === undefined
          ? undefined
          : await tx.conversation.findByExternalId(channel.accountId, Number(channel.id), 'sent', event.messageExternalId);
      const watermark = named?.sent_at ?? event.watermark;
      const changed = await tx.conversation.markRead(channel.accountId, contact.id, watermark, at);
      if (changed.read === 0) return [];
      const read: EventInput = {
        type: 'messages_read',
        channel,
        contactId: contact.id,
        data: { channel: channelRef(channel), contact: contactRef(contact), last_read_timestamp: isoTime(watermark) },
      };
      // A message read before its delivery was reported is reported delivered first.
      return changed.newlyDelivered.length > 0 ? [deliveredEvent(channel, contact, changed.newlyDelivered, at), read] : [read];
    });
  }

  /**
   * A delivery or read receipt for a contact the service knows (others are ignored): `work` marks
   * the messages at `at` (the platform's time, else now) and answers the events that report it,
   * appended in the same transaction; the webhook workers are woken when one has a webhook.
   */
  private async receipt(
    channel: Channel,
    user: InboundUser,
    platformAt: number | null,
    trace: InboundTrace,
    work: (tx: Repos, contact: ContactRow, at: number) => Promise<EventInput[]>,
  ): Promise<void> {
    const { store, clock, outbox } = this.deps;
    const contact = await this.contacts.existing(channel, user);
    if (!contact) return;
    const at = platformAt ?? clock.now();
    let wake = false;
    await store.transaction(async (tx) => {
      for (const input of await work(tx, contact, at)) {
        const appended = await outbox.append(tx, { ...input, correlationId: trace.requestId });
        wake ||= appended.deliveryId !== null;
      }
    });
    if (wake) outbox.wake();
  }

  /** The payload of a button the platform named by its place in a message the service sent. */
  private async buttonPayload(channel: Channel, ref: { messageExternalId: string; index: number }): Promise<string | undefined> {
    const sent = await this.deps.store.conversation.findByExternalId(channel.accountId, Number(channel.id), 'sent', ref.messageExternalId);
    if (!sent) return undefined;
    const content = JSON.parse(sent.content) as Content;
    if (content.type !== 'structure') return undefined;
    const cards: Card[] = Array.isArray(content.payload) ? content.payload : [content.payload];
    const button = cards.flatMap((c) => c.buttons ?? [])[ref.index];
    return button?.type === 'postback' ? button.payload : undefined;
  }

  private async postback(channel: Channel, event: Extract<InboundEvent, { kind: 'postback' }>, trace: InboundTrace): Promise<void> {
    const contact = await this.contacts.resolve(channel, event.user);
    if (!contact) return;
    const payload = event.payload ?? (event.buttonRef ? await this.buttonPayload(channel, event.buttonRef) : undefined);
    if (payload === undefined) return;
    await this.write(
      this.unitFor(channel, contact, 'postback', { channel: channelRef(channel), contact: contactRef(contact), postback: { payload } }, event.eventKey),
      trace,
    );
  }

  private async optIn(channel: Channel, event: Extract<InboundEvent, { kind: 'opt_in' }>, trace: InboundTrace): Promise<void> {
    const contact =
      event.optInType === 'phone_number' ? await this.contacts.acceptPhone(channel, event.user) : await this.contacts.resolve(channel, event.user);
    if (!contact) return;
    await refreshContact({ ...this.deps, contacts: this.contacts }, channel, contact, event.user);
    const optIn: Record<string, unknown> = { type: event.optInType };
    if (event.payload !== undefined) optIn.payload = event.payload;
    await this.write(
      this.unitFor(channel, contact, 'opt_in', { channel: channelRef(channel), contact: contactRef(contact), opt_in: optIn }, event.eventKey),
      trace,
    );
  }
}

/** The switch above names every kind: a kind added to the contract without a case fails to compile here. */
function unknownEvent(event: never): never {
  throw new Error(`inbound event of unknown kind: ${(event as { kind?: unknown }).kind}`);
}

function deliveredEvent(channel: Channel, contact: ContactRow, ids: number[], at: number): EventInput {
  return {
    type: 'messages_delivered',
    channel,
    contactId: contact.id,
    data: { channel: channelRef(channel), contact: contactRef(contact), messages: ids.map((id) => ({ id: String(id) })), delivered_timestamp: isoTime(at) },
  };
}
