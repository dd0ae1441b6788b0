import {
  defineConnector,
  type ChannelContext,
  type ChannelInput,
  type InboundCall,
  type OutboundMessage,
  type PlatformResult,
  type Recipient,
  type SendReceipt,
  type VerifiedChannel,
} from '../connector.js';
import type { Content } from '../../schemas/content.js';
import { fileNameFor, fileNameFromUrl } from '../http.js';
import { formatMailbox } from './addresses.js';
import { MailApi, type FormFile } from './api.js';
import { EVENTS_ENDPOINT, MAIL_ENDPOINT, parseCall } from './inbound.js';
import { EVENT_WEBHOOKS, MAX_MESSAGE_BYTES, REFERENCE_VARIABLE, type EmailOptions } from './options.js';
import { renderMail } from './render.js';
import { SignatureVerifier } from './signature.js';

/**
 * email: mail through the provider's `/v3` API with the channel's private API key. See README.md
 * in this folder for the protocol, what is registered with the provider, failure codes and limits.
 */
type Json = Record<string, unknown>;

const DEFAULT_SUBJECT = 'Message';

/** The provider calls at most three URLs per event webhook of a domain. */
const MAX_WEBHOOK_URLS = 3;

function apiKeyOf(channel: { secrets: Record<string, string> }): string {
  return channel.secrets.access_token ?? '';
}

function senderOf(config: Record<string, unknown>): { email: string; name: string | undefined } {
  const sender = (config.sender ?? {}) as Json;
  return { email: String(sender.email ?? '').toLowerCase(), name: typeof sender.name === 'string' ? sender.name : undefined };
}

function domainOf(config: Record<string, unknown>): string {
  return String(config.domain ?? senderOf(config).email.split('@')[1] ?? '');
}

/** The route's description names the channel, so it is found again on a change and on delete. */
function routeDescription(channelId: string): string {
  return `parley channel ${channelId}`;
}

/** A regular expression matching exactly this address (the provider matches expressions anywhere in the value). */
function exactAddress(address: string): string {
  return `^${address.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`;
}

/**
 * The URLs of a webhook as read back: `{"webhook":{"urls":[…]}}`, or the older single-URL form
 * `{"webhook":{"url":"…"}}` (the official SDK's tests show both), so a URL already there is kept.
 */
export function webhookUrls(body: unknown): string[] {
  const webhook = (body as { webhook?: { urls?: unknown; url?: unknown } } | null)?.webhook;
  const urls = Array.isArray(webhook?.urls) ? webhook.urls : typeof webhook?.url === 'string' && webhook.url !== '' ? [webhook.url] : [];
  return urls.filter((u): u is string => typeof u === 'string' && u !== '');
}

/** The account API's path of the HTTP webhook signing key (`{"http_signing_key": "…"}`). */
export const SIGNING_KEY_PATH = '/v5/accounts/http_signing_key';

export function createEmailConnector(options: EmailOptions) {
  const api = new MailApi(options.timeoutMs, () => options.now());
  const signatures = new SignatureVerifier(options.signatureMaxAgeMs, () => options.now());
  const baseOf = (config: Record<string, unknown>) => (config.region === 'eu' ? options.apiUrls.eu : options.apiUrls.us);

  /** The channel's route for its sender address, made or brought up to date (found by its description). */
  async function registerRoute(channelId: string, config: Record<string, unknown>, key: string): Promise<PlatformResult<null>> {
    const base = baseOf(config);
    const fields: Array<[string, string]> = [
      ['priority', '0'],
      ['description', routeDescription(channelId)],
      ['expression', `match_recipient("${exactAddress(senderOf(config).email)}")`],
      ['action', `forward("${options.inboundUrl(channelId, MAIL_ENDPOINT)}")`],
    ];
    const listed = await api.call(base, key, 'GET', '/v3/routes?limit=1000');
    if (!listed.ok) return listed;
    const items = (listed.value.body as { items?: unknown } | null)?.items;
    const existing = Array.isArray(items) ? (items as Json[]).find((r) => r?.description === routeDescription(channelId)) : undefined;
    const done =
      existing && typeof existing.id === 'string'
        ? await api.call(base, key, 'PUT', `/v3/routes/${encodeURIComponent(existing.id)}`, fields)
        : await api.call(base, key, 'POST', '/v3/routes', fields);
    return done.ok ? { ok: true, value: null } : done;
  }

  /** Adds (or removes) the channel's events URL on each event webhook of the domain, keeping other URLs. */
  async function updateWebhooks(channelId: string, config: Record<string, unknown>, key: string, add: boolean): Promise<PlatformResult<null>> {
    const base = baseOf(config);
    const domain = encodeURIComponent(domainOf(config));
    const url = options.inboundUrl(channelId, EVENTS_ENDPOINT);
    for (const id of EVENT_WEBHOOKS) {
      const path = `/v3/domains/${domain}/webhooks/${id}`;
      const current = await api.call(base, key, 'GET', path);
      if (!current.ok && current.code !== '404') return current;
      const list = current.ok ? webhookUrls(current.value.body) : [];
      const others = list.filter((u) => u !== url);
      let done: PlatformResult<unknown>;
      if (add) {
        if (list.includes(url)) continue;
        if (list.length >= MAX_WEBHOOK_URLS)
          return {
            ok: false,
            retryable: false,
            code: 'webhook_urls_full',
            field: 'provider.domain',
            message: `The ${id} webhook of ${domainOf(config)} already calls ${list.length} URLs, the provider's most: at most ${MAX_WEBHOOK_URLS} channels send from one domain.`,
          };
        done = current.ok
          ? await api.call(base, key, 'PUT', path, [...[...others, url].map((u) => ['url', u] as const)])
          : await api.call(base, key, 'POST', `/v3/domains/${domain}/webhooks`, [
              ['id', id],
              ['url', url],
            ]);
      } else {
        if (!list.includes(url)) continue;
        done =
          others.length > 0
            ? await api.call(
                base,
                key,
                'PUT',
                path,
                others.map((u) => ['url', u] as const),
              )
            : await api.call(base, key, 'DELETE', path);
      }
      if (!done.ok) return { ...done, field: 'provider.domain' };
    }
    return { ok: true, value: null };
  }

  const verifier = {
    /**
     * The key and the domain are checked by reading the domain's webhooks (401: the key is refused,
     * 404: the domain is not the account's). A provider that cannot answer is retryable (502).
     */
    async verifyChannel(input: ChannelInput): Promise<PlatformResult<VerifiedChannel>> {
      const key = apiKeyOf(input);
      const domain = domainOf(input.config);
      const checked = await api.call(baseOf(input.config), key, 'GET', `/v3/domains/${encodeURIComponent(domain)}/webhooks`);
      if (!checked.ok) {
        if (checked.retryable) return checked;
        if (checked.code === '401' || checked.code === '403') return { ...checked, field: 'provider.access_token' };
        if (checked.code === '404')
          return { ...checked, field: 'provider.domain', message: `The provider has no domain ${domain} for this key (${checked.message}).` };
        return { ...checked, field: 'provider.access_token' };
      }
      if (input.secrets.webhook_signing_key || options.webhookSigningKey) return { ok: true, value: { config: {}, secrets: {} } };
      return readSigningKey(input.config, key);
    },
  };

  /**
   * A channel given no webhook signing key (and none configured for the account) takes the
   * account's from the provider's account API; one the provider does not hand to this key is
   * refused (422), since every mail and event would then be refused.
   */
  async function readSigningKey(config: Record<string, unknown>, key: string): Promise<PlatformResult<VerifiedChannel>> {
    const read = await api.call(baseOf(config), key, 'GET', SIGNING_KEY_PATH);
    if (!read.ok && read.retryable) return read;
    const signingKey = read.ok ? (read.value.body as { http_signing_key?: unknown } | null)?.http_signing_key : undefined;
    if (typeof signingKey === 'string' && signingKey.trim() !== '')
      return { ok: true, value: { config: {}, secrets: { webhook_signing_key: signingKey.trim() } } };
    return {
      ok: false,
      retryable: false,
      code: 'no_signing_key',
      field: 'provider.webhook_signing_key',
      message: `The provider's HTTP webhook signing key is needed to verify inbound mail and events: give provider.webhook_signing_key (or set MAILPROVIDER_WEBHOOK_SIGNING_KEY); the provider did not hand it to this API key (${read.ok ? 'no key in its answer' : read.message}).`,
    };
  }

  const registrar = {
    /**
     * Once the channel is saved: its route forwarding mail to the sender address and its URL on the
     * domain's event webhooks. After a change of key, domain or region, what the channel had
     * registered before (another account, domain or host) is removed first, as far as it answers.
     */
    async registerChannel(channel: ChannelContext, previous: ChannelContext | null): Promise<PlatformResult<null>> {
      const key = apiKeyOf(channel);
      if (
        previous &&
        (apiKeyOf(previous) !== key || domainOf(previous.config) !== domainOf(channel.config) || baseOf(previous.config) !== baseOf(channel.config))
      ) {
        await releaseChannel(previous);
      }
      const route = await registerRoute(channel.id, channel.config, key);
      if (!route.ok) return route.retryable ? route : { ...route, field: 'provider.sender.email' };
      return updateWebhooks(channel.id, channel.config, key, true);
    },
  };

  /** The channel's route and its URL on the event webhooks are removed; the rest of the account is left as it is. */
  async function releaseChannel(channel: ChannelContext): Promise<PlatformResult<null>> {
    const key = apiKeyOf(channel);
    const base = baseOf(channel.config);
    const listed = await api.call(base, key, 'GET', '/v3/routes?limit=1000');
    if (!listed.ok) return listed;
    const items = (listed.value.body as { items?: unknown } | null)?.items;
    for (const route of Array.isArray(items) ? (items as Json[]) : []) {
      if (route?.description !== routeDescription(channel.id) || typeof route.id !== 'string') continue;
      const removed = await api.call(base, key, 'DELETE', `/v3/routes/${encodeURIComponent(route.id)}`);
      if (!removed.ok) return removed;
    }
    return updateWebhooks(channel.id, channel.config, key, false);
  }

  const release = { releaseChannel };

  /** A file to attach, downloaded through the address guard within the attachment limit. */
  async function fetchAttachment(url: string): Promise<PlatformResult<{ bytes: Uint8Array; contentType: string }>> {
    const fetched = await options.media.download(url, options.timeoutMs, options.maxAttachmentBytes);
    if (fetched.ok) return fetched;
    if (fetched.code === 'too_large')
      return {
        ok: false,
        retryable: false,
        code: 'attachment_too_large',
        field: 'content.payload.url',
        message: `The file at ${url} is larger than the ${options.maxAttachmentBytes} bytes an e-mail attachment may have.`,
      };
    return { ...fetched, field: 'content.payload.url', message: `The file to attach could not be fetched: ${fetched.message}` };
  }

  const contentCheck = {
    /**
     * A file to attach is fetched once before the message is stored, so one over the limit, at an
     * address the guard refuses or not found is a 422 at Send Message; a file server that does not
     * answer lets the message through (the send worker tries again).
     */
    async checkContent(_channel: ChannelContext, content: Content): Promise<PlatformResult<null>> {
      if (content.type !== 'image' && content.type !== 'video' && content.type !== 'audio' && content.type !== 'file') return { ok: true, value: null };
      const fetched = await fetchAttachment(content.payload.url);
      return fetched.ok ? { ok: true, value: null } : fetched;
    },
  };

  const sender = {
    async send(channel: ChannelContext, recipient: Recipient, message: OutboundMessage): Promise<PlatformResult<SendReceipt>> {
      if (!recipient.email) return { ok: false, retryable: false, code: 'no_recipient', message: 'The contact has no e-mail address.' };
      const defaultSubject = typeof channel.config.default_subject === 'string' ? channel.config.default_subject : DEFAULT_SUBJECT;
      const mail = renderMail(message.content, message.metadata, message.conversation ?? [], defaultSubject);
      const files: FormFile[] = [];
      let total = Buffer.byteLength(mail.text) + Buffer.byteLength(mail.html);
      for (const [i, attachment] of mail.attachments.entries()) {
        const fetched = await fetchAttachment(attachment.url);
        if (!fetched.ok) return fetched;
        const mimeType = fetched.value.contentType.split(';')[0]?.trim() || 'application/octet-stream';
        const name = fileNameFromUrl(attachment.url, fileNameFor(attachment.kind, mimeType)) || `attachment-${i + 1}`;
        total += fetched.value.bytes.length;
        if (total > MAX_MESSAGE_BYTES)
          return {
            ok: false,
            retryable: false,
            code: 'message_too_large',
            message: `The message with its attachments exceeds the provider's ${MAX_MESSAGE_BYTES} bytes.`,
          };
        files.push({ field: 'attachment', name, mimeType, bytes: fetched.value.bytes });
      }
      const from = senderOf(channel.config);
      const fields: Array<[string, string]> = [
        ['from', formatMailbox(from.email, from.name)],
        ['to', formatMailbox(recipient.email, recipient.name ?? undefined)],
        ['subject', mail.subject],
        ['text', mail.text],
        ['html', mail.html],
        [`v:${REFERENCE_VARIABLE}`, message.id],
        ['o:tracking-opens', channel.config.open_tracking === true ? 'yes' : 'no'],
      ];
      for (const [name, value] of Object.entries(mail.headers)) fields.push([`h:${name}`, value]);
      const sent = await api.call(
        baseOf(channel.config),
        apiKeyOf(channel),
        'POST',
        `/v3/${encodeURIComponent(domainOf(channel.config))}/messages`,
        fields,
        files,
      );
      if (!sent.ok) return sent;
      const id = (sent.value.body as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' || id.trim() === '')
        return { ok: false, retryable: true, code: 'bad_answer', message: 'The provider accepted the mail but gave no id.' };
      // Events name the message by its Message-ID without angle brackets.
      return { ok: true, value: { externalIds: [id.trim().replace(/^<|>$/g, '')] } };
    },
  };

  const channelInbound = {
    endpoints: [
      // Mail with attachments: the provider's whole-message limit, streamed (files never whole in memory).
      { name: MAIL_ENDPOINT, methods: ['POST'], streamedForm: { maxBytes: MAX_MESSAGE_BYTES } },
      { name: EVENTS_ENDPOINT, methods: ['POST'] },
    ] as const,
    parse: (call: InboundCall, channel: ChannelContext) => parseCall(call, channel, { verifier: signatures, webhookSigningKey: options.webhookSigningKey }),
  };

  return defineConnector('email', { verifier, registrar, release, contentCheck, sender, channelInbound });
}
