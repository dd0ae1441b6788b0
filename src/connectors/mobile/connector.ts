import {
  defineConnector,
  type ChannelContext,
  type ChannelInput,
  type InboundCall,
  type OutboundMessage,
  type PlatformResult,
  type Recipient,
  type SendReceipt,
  type SentLookupHint,
  type VerifiedChannel,
} from '../connector.js';
import { SmsApi } from './api.js';
import { parseCall, RECEIVE_ENDPOINT, STATUS_ENDPOINT } from './inbound.js';
import type { MobileOptions } from './options.js';
import { renderMessage } from './render.js';
import { reportUrlOf } from './status-url.js';

/**
 * mobile: SMS through the provider's REST API with the channel's access key. See README.md in
 * this folder for the protocol, callbacks, failure codes and limits.
 */
type Json = Record<string, unknown>;

/** Messages per page of the provider's list when a message is looked up by its reference. */
const LOOKUP_PAGE = 100;

/**
 * The provider's clock and ours may differ: a lookup reads back this much before the message was
 * made. No end time is given: a provider clock ahead of ours would hide the message. Messages
 * that arrive while the pages are read push older ones down (read twice), never out.
 */
const CLOCK_LEEWAY_MS = 5 * 60_000;

/** RFC 3339 in UTC without fractions, as the provider writes its times. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

function keyOf(channel: { secrets: Record<string, string> }): string {
  return channel.secrets.access_token ?? '';
}

/** The provider's id of an accepted message (one per message, whatever its parts and recipients). */
function idsOf(answer: unknown): string[] {
  const id = (answer as Json | undefined)?.id;
  return typeof id === 'string' && id !== '' ? [id] : [];
}

/** The roles mobile plays: credential check, send, lookup by reference, the channel's own status and receive URLs. */
export function createMobileConnector(options: MobileOptions) {
  const api = new SmsApi(options.apiUrl, options.timeoutMs, () => options.now());
  const lookupPages = options.lookupPages ?? 100;

  const verifier = {
    /** The key is checked with a read of one message: refused (401) names `provider.access_token`; a provider that cannot answer is retryable (502). */
    async verifyChannel(input: ChannelInput): Promise<PlatformResult<VerifiedChannel>> {
      // A test-mode channel never calls the provider; its key is checked when it leaves test mode.
      if (input.mode === 'test') return { ok: true, value: { config: {}, secrets: {} } };
      const checked = await api.call(keyOf(input), 'GET', '/messages?limit=1');
      if (!checked.ok) return checked.retryable ? checked : { ...checked, field: 'provider.access_token' };
      return { ok: true, value: { config: {}, secrets: {} } };
    },
  };

  const sender = {
    async send(channel: ChannelContext, recipient: Recipient, message: OutboundMessage): Promise<PlatformResult<SendReceipt>> {
      const params = renderMessage(channel, recipient, message, reportUrlOf(options.inboundUrl(channel.id, STATUS_ENDPOINT), channel));
      if (!params.ok) return params;
      const sent = await api.call(keyOf(channel), 'POST', '/messages', params.value);
      if (!sent.ok) return sent;
      const externalIds = idsOf(sent.value);
      // Accepted without an id we can read: a retry must look the message up by its reference first.
      if (externalIds.length === 0) return { ok: false, retryable: true, code: 'bad_answer', message: 'The provider accepted the message but gave no id.' };
      return { ok: true, value: { externalIds } };
    },
  };

  const sentLookup = {
    /**
     * The provider reads a message back by its own id only and its list has no filter by
     * reference; it filters by recipient and by creation time (`from`, `until`) on the server.
     * The list of the message's recipient since it was made (five minutes earlier, for the
     * clocks) is read to its end, so the answer is exact however busy the account is: the ids
     * of the messages with this reference, or null. The reference and the time are checked here
     * too, so a provider that ignored a filter still gets a right answer. Messages sent with a
     * test key are never listed.
     */
    async findSent(channel: ChannelContext, reference: string, hint: SentLookupHint = {}): Promise<PlatformResult<SendReceipt | null>> {
      const found: string[] = [];
      const since = hint.since === undefined ? undefined : hint.since - CLOCK_LEEWAY_MS;
      const filters = new URLSearchParams({ direction: 'mt' });
      const phone = hint.recipient?.phoneNumber?.replace(/\D/g, '');
      if (phone) filters.set('recipient', phone);
      if (since !== undefined) filters.set('from', rfc3339(since));
      for (let page = 0; page < lookupPages; page++) {
        const listed = await api.call(keyOf(channel), 'GET', `/messages?${filters.toString()}&limit=${LOOKUP_PAGE}&offset=${page * LOOKUP_PAGE}`);
        if (!listed.ok) return listed;
        const items = (listed.value as { items?: unknown } | undefined)?.items;
        if (!Array.isArray(items)) return { ok: false, retryable: true, code: 'bad_answer', message: 'The provider answered a list without items.' };
        let older = false;
        for (const item of items as Json[]) {
          if (item?.reference === reference && typeof item.id === 'string') found.push(item.id);
          const created = typeof item?.createdDatetime === 'string' ? Date.parse(item.createdDatetime) : NaN;
          if (since !== undefined && created < since) older = true;
        }
        if (found.length > 0) return { ok: true, value: { externalIds: found } };
        if (items.length < LOOKUP_PAGE || older) return { ok: true, value: null };
      }
      return {
        ok: false,
        retryable: true,
        code: 'lookup_incomplete',
        message: `No message with reference ${reference} among the provider's latest ${lookupPages * LOOKUP_PAGE} to its recipient; older ones were not read.`,
      };
    },
  };

  const channelInbound = {
    endpoints: [
      { name: STATUS_ENDPOINT, methods: ['GET'] },
      { name: RECEIVE_ENDPOINT, methods: ['POST'] },
    ] as const,
    parse: (call: InboundCall, channel: ChannelContext) => parseCall(call, channel, options),
  };

  return defineConnector('mobile', { verifier, sender, sentLookup, channelInbound });
}
