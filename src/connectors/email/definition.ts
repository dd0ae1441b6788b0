import { Type } from '@sinclair/typebox';
import type { ChannelTypeDefinition } from '../../channel-types/definition.js';
import { ApiError } from '../../lib/errors.js';
import { isPlainObject } from '../../lib/json.js';
import type { Metadata } from '../../schemas/content.js';
import { NO_SETTINGS, Str, strict } from '../../channel-types/common.js';
import type { ChannelTypeUi } from '../../channel-types/ui.js';

/** The mail provider calls one URL per channel and kind: forwarded mail, and event webhooks. */
const INBOUND_ENDPOINTS = ['mail', 'events'] as const;

/** The subject of a first message when the client gives none. */
export const DEFAULT_SUBJECT = 'Message';

/** Earlier messages a send threads to (References); mail clients need only the latest few. */
const CONVERSATION_DEPTH = 20;

/** RFC 5322 caps a header line at 998 characters. */
const MAX_SUBJECT = 998;

const DOMAIN = Type.String({ minLength: 3, maxLength: 253, pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$' });

const PROVIDER = Type.Object(
  {
    type: Type.Literal('mailprovider'),
    access_token: Str(2000),
    sender: Type.Object({ email: Type.String({ minLength: 3, maxLength: 320, format: 'email' }), name: Str(200) }, strict),
    domain: Type.Optional({
      ...DOMAIN,
      description: "Beyond the specification: the provider's sending domain. Default: the domain of sender.email.",
    }),
    region: Type.Optional(
      Type.Union([Type.Literal('us'), Type.Literal('eu')], {
        description: "Beyond the specification: the provider's region of the domain, `us` (default) or `eu`.",
      }),
    ),
    webhook_signing_key: Type.Optional({
      ...Str(2000),
      description:
        "Beyond the specification: the provider's HTTP webhook signing key (not the API key); forwarded mail and events are verified with it. Write-only. Left out: MAILPROVIDER_WEBHOOK_SIGNING_KEY, else the account's key read from the provider (422 when it does not hand it over).",
    }),
    open_tracking: Type.Optional(
      Type.Boolean({ description: 'Beyond the specification: mail is sent with open tracking, and an open is reported as messages_read. Default false.' }),
    ),
    default_subject: Type.Optional({
      ...Str(MAX_SUBJECT),
      description: `Beyond the specification: the subject of a first message sent without metadata.email.subject. Default "${DEFAULT_SUBJECT}".`,
    }),
  },
  { ...strict, description: 'ALPHA: the structure may change with breaking changes.' },
);

/** The domain of an address ("a@mg.example.com" -> "mg.example.com"). */
function domainOfAddress(address: unknown): string | undefined {
  if (typeof address !== 'string') return undefined;
  const at = address.lastIndexOf('@');
  return at < 0 ? undefined : address.slice(at + 1).toLowerCase();
}

/** `metadata.email.subject` is the subject; other keys of `metadata.email` are refused, the rest of metadata is the client's. */
function checkMetadata(metadata: Metadata): Metadata {
  const own = (metadata as Record<string, unknown>).email;
  if (own === undefined) return metadata;
  if (!isPlainObject(own)) throw ApiError.invalid('metadata.email', own, "Property 'metadata.email' must be an object.");
  for (const [key, value] of Object.entries(own)) {
    if (key !== 'subject')
      throw ApiError.invalid(`metadata.email.${key}`, value, `Property 'metadata.email.${key}' is not supported; metadata.email takes subject.`);
    if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_SUBJECT || /[\r\n]/.test(value)) {
      throw ApiError.invalid(
        'metadata.email.subject',
        value,
        `Property 'metadata.email.subject' must be a text of 1 to ${MAX_SUBJECT} characters on one line.`,
      );
    }
  }
  return metadata;
}

// How the administration app shows the type (labels and hints; served by the admin channel-types route).
const EMAIL_UI: ChannelTypeUi = {
  label: 'E-mail (email, alpha)',
  shortLabel: 'E-mail',
  intro: 'E-mail through the mail provider (alpha: the structure may change). The service registers its routes for incoming mail and events with the provider.',
  fields: [
    { path: 'provider.access_token', label: 'Provider API key', kind: 'text' },
    { path: 'provider.sender.email', label: 'Sender address', kind: 'email', placeholder: 'support@example.com' },
    { path: 'provider.sender.name', label: 'Sender name', kind: 'text', placeholder: 'Example Support' },
    {
      path: 'provider.domain',
      label: 'Sending domain',
      kind: 'text',
      hint: "Optional: the provider's domain to send from. Empty: the sender address's domain.",
    },
    {
      path: 'provider.region',
      label: 'Provider region',
      kind: 'select',
      options: [
        { id: 'us', label: 'US' },
        { id: 'eu', label: 'EU' },
      ],
      hint: 'Where the provider keeps the domain.',
    },
    {
      path: 'provider.webhook_signing_key',
      label: 'Webhook signing key',
      kind: 'text',
      hint: "Optional: the provider's HTTP webhook signing key (not the API key), which proves its calls with incoming mail and events.",
    },
    { path: 'provider.default_subject', label: 'Default subject', kind: 'text', hint: 'Optional: the subject of a first message sent without one.' },
    { path: 'provider.open_tracking', label: 'Track opens (reported as read)', kind: 'boolean' },
  ],
  platformUrls: [
    { path: 'provider.mail_webhook_url', label: 'Incoming mail URL (registered with the mail provider by the service)' },
    { path: 'provider.events_webhook_url', label: 'Mail events URL (registered with the mail provider by the service)' },
  ],
};

/**
 * E-mail through a mail provider (ALPHA): asynchronous sends to addresses (or known contacts by
 * id), threaded per contact; inbound mail through the provider's forward route and event webhooks
 * on the channel's own URLs.
 */
export const email: ChannelTypeDefinition = {
  type: 'email',
  ui: EMAIL_UI,
  modes: ['production'],
  capabilities: {
    contentTypes: ['text', 'image', 'video', 'audio', 'file', 'structure'],
    quickReplies: 'text',
    quickReplyKinds: ['text'],
    buttons: ['url'],
    maxButtonsPerCard: 3,
    maxCards: 10,
    maxTextLength: 100_000,
    notifications: [],
    delivery: 'async',
    contactForms: ['id', 'email'],
  },
  input: {
    key: 'provider',
    schema: PROVIDER,
    secretFields: ['access_token', 'webhook_signing_key'],
    required: true,
    prepareCreate: (config) => {
      const sender = isPlainObject(config.sender) ? config.sender : {};
      if (config.domain === undefined) config.domain = domainOfAddress(sender.email);
      else config.domain = String(config.domain).toLowerCase();
      config.region ??= 'us';
      config.open_tracking ??= false;
    },
  },
  view: {
    schema: Type.Record(Type.String(), Type.Unknown(), { description: 'ALPHA: the structure may change with breaking changes.' }),
    // The URLs the service registers with the provider: `mail_webhook_url` (the route's forward) and `events_webhook_url`.
    render: ({ own, region, inboundUrl }) => {
      const provider: Record<string, unknown> = { ...own, region: region ?? 'us' };
      // The signing key is write-only, like the API key of other types is not: it proves the provider's calls.
      delete provider.webhook_signing_key;
      for (const endpoint of INBOUND_ENDPOINTS) provider[`${endpoint}_webhook_url`] = inboundUrl(endpoint);
      return { provider };
    },
  },
  // A new sender, domain or region is registered with the provider again.
  update: { reverifyKeys: ['sender', 'domain', 'region'], ownKeys: [] },
  contactView: { phoneNumber: false, email: true },
  send: { reservedMetadata: ['email'], checkMetadata, conversationDepth: CONVERSATION_DEPTH },
  settings: NO_SETTINGS,
  inboundEndpoints: INBOUND_ENDPOINTS,
  webChat: false,
};
