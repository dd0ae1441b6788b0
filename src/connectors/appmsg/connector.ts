import {
  defineConnector,
  type ChannelContext,
  type ChannelInput,
  type FetchedMedia,
  type InboundCall,
  type OutboundMessage,
  type PlatformFile,
  type PlatformResult,
  type Recipient,
  type SendReceipt,
  type VerifiedChannel,
} from '../connector.js';
import { fileNameFor, fileNameFromUrl } from '../http.js';
import { AppmsgApi, type Json } from './api.js';
import { parseCallback } from './inbound.js';
import { EVENT_TYPES, EVENTS_ENDPOINT, MAX_FILE_BYTES, MAX_MEDIA_BYTES, MAX_VIDEO_BYTES, type AppmsgOptions } from './options.js';
import { renderMessage } from './render.js';

/**
 * appmsg: a messaging app's bot accounts, reached with the account's token. See README.md in this
 * folder for the protocol, credentials and limits.
 */

/** The sender name shown with each message: at most 28 characters on the platform. */
export const SENDER_NAME_MAX = 28;
/** The whole send_message body is at most 30 KB. */
const MAX_BODY_BYTES = 30 * 1024;

function tokenOf(channel: { secrets: Record<string, string> }): string {
  return channel.secrets.access_token ?? '';
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function createAppmsgConnector(options: AppmsgOptions) {
  const api = new AppmsgApi(options.apiUrl, options.authHeaderName, options.timeoutMs);

  const verifier = {
    /** get_account_info checks the token and reads the account: its id, name, uri and icon are kept on the channel. */
    async verifyChannel(input: ChannelInput): Promise<PlatformResult<VerifiedChannel>> {
      const token = input.secrets.access_token ?? '';
      const info = await api.call(token, 'get_account_info');
      if (!info.ok) return info.retryable ? info : { ...info, field: 'appmsg.access_token' };
      const config: Json = {
        id: String(info.value.id ?? ''),
        name: text(info.value.name) ?? null,
        uri: text(info.value.uri) ?? null,
        icon: text(info.value.icon) ?? null,
      };
      return { ok: true, value: { config, secrets: { access_token: token } } };
    },
  };

  const registrar = {
    /**
     * set_webhook points the account at the saved channel's inbound URL (the platform calls it
     * once and needs 200, so the channel must exist). A previous token of another account has its
     * registration removed; one of the same account must not (it would remove the new one).
     */
    async registerChannel(channel: ChannelContext, previous: ChannelContext | null): Promise<PlatformResult<null>> {
      const url = options.inboundUrl(channel.id, EVENTS_ENDPOINT);
      const set = await api.call(tokenOf(channel), 'set_webhook', { url, event_types: [...EVENT_TYPES], send_name: true, send_photo: true });
      if (!set.ok)
        return set.retryable ? set : { ...set, retryable: true, message: `The platform did not accept the service's webhook ${url}: ${set.message}` };
      const before = previous ? tokenOf(previous) : '';
      if (previous && before !== '' && before !== tokenOf(channel) && String(previous.config.id ?? '') !== String(channel.config.id ?? '')) {
        await api.call(before, 'set_webhook', { url: '' });
      }
      return { ok: true, value: null };
    },
  };

  const release = {
    /** The deleted channel's webhook is removed (an empty URL), when its token still works. */
    async releaseChannel(channel: ChannelContext): Promise<PlatformResult<null>> {
      const removed = await api.call(tokenOf(channel), 'set_webhook', { url: '' });
      return removed.ok ? { ok: true, value: null } : removed;
    },
  };

  /**
   * The size the platform wants with a video or file, asked of the URL through the address guard
   * (a HEAD request, or a ranged GET of one byte): the file itself is not downloaded.
   */
  async function sizeOf(url: string, kind: 'video' | 'file'): Promise<PlatformResult<number>> {
    const max = kind === 'video' ? MAX_VIDEO_BYTES : MAX_FILE_BYTES;
    const got = await options.media.sizeOf(url, options.timeoutMs);
    if (!got.ok) return { ...got, message: `The size of the ${kind} could not be read from its URL: ${got.message}` };
    if (got.value > max)
      return { ok: false, retryable: false, code: 'too_large', message: `The ${kind} is larger than the platform takes (${max / 1024 / 1024} MB).` };
    return got;
  }

  const sender = {
    async send(channel: ChannelContext, recipient: Recipient, message: OutboundMessage): Promise<PlatformResult<SendReceipt>> {
      const receiver = recipient.externalId;
      if (!receiver) return { ok: false, retryable: false, code: 'no_recipient', message: 'The contact has no conversation with the account.' };
      const rendered = renderMessage(message.content);
      const body: Json = { receiver, ...rendered.body };
      if (rendered.sizeOf) {
        const size = await sizeOf(rendered.sizeOf.url, rendered.sizeOf.kind);
        if (!size.ok) return size;
        body.size = size.value;
      }
      const name = text(channel.config.name) ?? 'Parley';
      const avatar = text(channel.config.icon);
      body.sender = { name: [...name].slice(0, SENDER_NAME_MAX).join('').trimEnd(), ...(avatar ? { avatar } : {}) };
      if (Buffer.byteLength(JSON.stringify(body)) > MAX_BODY_BYTES)
        return { ok: false, retryable: false, code: 'too_large', message: 'The message is larger than the platform takes (30 KB of JSON).' };
      const sent = await api.call(tokenOf(channel), 'send_message', body);
      if (!sent.ok) return sent;
      const token = sent.value.message_token;
      return { ok: true, value: { externalIds: typeof token === 'string' ? [token] : [] } };
    },
  };

  const channelInbound = {
    endpoints: [{ name: EVENTS_ENDPOINT, methods: ['POST'] }] as const,
    parse: (call: InboundCall, channel: ChannelContext) => parseCallback(call, options.signatureHeaderName, channel.secrets.access_token),
  };

  const media = {
    /** Received files and avatars are public URLs on the platform's media hosts. */
    async fetchMedia(_channel: ChannelContext, file: PlatformFile): Promise<PlatformResult<FetchedMedia>> {
      const got = await options.media.download(file.ref, options.timeoutMs, MAX_MEDIA_BYTES);
      if (!got.ok) return got;
      const mimeType = file.mimeType ?? got.value.contentType;
      return { ok: true, value: { bytes: got.value.bytes, mimeType, name: file.name ?? fileNameFromUrl(file.ref, fileNameFor('file', mimeType)) } };
    },
  };

  return defineConnector('appmsg', { verifier, registrar, release, sender, channelInbound, media });
}
