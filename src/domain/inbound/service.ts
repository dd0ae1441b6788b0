import { parseId } from '../../lib/ids.js';
import { ApiError } from '../../lib/errors.js';
import { isChannelType, type ChannelType } from '../../schemas/channel-types.js';
import {
  channelContextOf,
  declaresEndpoint,
  type AppInbound,
  type InboundCall,
  type InboundEvent,
  type InboundParse,
  type SignatureBinding,
} from '../../connectors/connector.js';
import { decodeChannel, type Channel } from '../channels/view.js';
import { NO_TRACE, type InboundContext, type InboundServiceDeps, type InboundTrace, type InboundVerdict } from './context.js';
import { InboundContacts } from './contacts.js';
import { applyEvent } from './events.js';
import { MediaUnavailable } from './media.js';
import { SharedNumberReplies } from './shared-number.js';

export type { InboundServiceDeps, InboundTrace } from './context.js';

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

const OK: InboundAnswer = { status: 200, contentType: 'text/plain; charset=utf-8', body: 'EVENT_RECEIVED' };

function channelNotFound(): ApiError {
  return ApiError.notFound('Channel');
}

function refusal(parsed: Extract<InboundParse, { ok: false }>): ApiError {
  const code = parsed.status === 400 ? 'bad_request' : parsed.status === 401 ? 'unauthorized' : parsed.status === 404 ? 'not_found' : 'forbidden';
  return ApiError.of(code, parsed.message);
}

/**
 * The calls platforms make (a channel's own URL, an app's URL, the subscription handshake), each
 * checked by its connector and its events applied in order by the handler of their kind
 * (events.ts: message.ts, echo.ts, delivered.ts, read.ts, postback.ts, opt-in.ts,
 * status-report.ts, opt-out.ts).
 *
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
  /** What each event kind's handler is given (events.ts hands an event to its kind's file). */
  private readonly context: InboundContext;

  constructor(private readonly deps: InboundServiceDeps) {
    const contacts = new InboundContacts({
      store: deps.store,
      ids: deps.ids,
      clock: deps.clock,
      defaultPhoneRegion: deps.defaultPhoneRegion,
      onChanged: (contactId) => deps.signals.emit('contactChanged', { contactId }),
    });
    this.contacts = contacts;
    const sharedNumber = new SharedNumberReplies({ store: deps.store, box: deps.box, phoneOf: (raw) => contacts.phoneOf(raw) });
    this.context = { deps, contacts, sharedNumber, storing: new Map() };
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
    const row = id === null ? undefined : await this.deps.store.channels.findAnyAccount(id);
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
    const row = id === null ? undefined : await this.deps.store.channels.findAnyAccount(id);
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
      for (const event of events) await applyEvent(this.context, channel, event, trace);
    } catch (error) {
      if (error instanceof MediaUnavailable)
        throw ApiError.of('unavailable', `A file of the message could not be fetched from the platform yet: ${error.message}`);
      throw error;
    }
  }
}
