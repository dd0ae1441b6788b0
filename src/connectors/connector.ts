import type { ChannelMode, ChannelType } from '../schemas/channel-types.js';
import type { ButtonType, ContactForm, Content, ContentType, QuickReplyKind } from '../schemas/content.js';

/**
 * The one interface every platform connector implements. Connectors are stateless: the channel's
 * configuration and credentials come in with each call. Expected platform failures are values,
 * never throws.
 */
export interface ChannelContext {
  id: string;
  type: ChannelType;
  mode: ChannelMode;
  /** Public, type-specific fields as stored (e.g. page id, sender id). */
  config: Record<string, unknown>;
  /** Decrypted credentials (e.g. access_token, signing_key). */
  secrets: Record<string, string>;
}

export type PlatformFailure = {
  ok: false;
  /** Whether trying again later may succeed (platform down, rate limited). */
  retryable: boolean;
  /** Platform's own error code or a short name for it. */
  code: string;
  message: string;
  /** For credential checks: the request field the platform refused. */
  field?: string;
};
export type PlatformResult<T> = { ok: true; value: T } | PlatformFailure;

/** What a channel type's credential check gives back: fields read from the platform. */
export interface VerifiedChannel {
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}

export interface ChannelInput {
  /** The channel's id (already chosen on create), for platforms that must be told where to call back. */
  id?: string;
  type: ChannelType;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}

export const NOTIFICATION_TYPES = ['typing_on', 'typing_off', 'messages_read', 'custom'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/**
 * What a channel type can send; the API refuses the rest. One table holds every type's
 * declaration (capabilities.ts) so the API, the domain and the connectors read one source.
 */
export interface Capabilities {
  contentTypes: readonly ContentType[];
  /** `native`: the platform shows quick replies; `text`: they are rendered as numbered choices in the text. */
  quickReplies: 'native' | 'text';
  quickReplyKinds: readonly QuickReplyKind[];
  /** Button types of structure cards; empty when the platform has no buttons. */
  buttons: readonly ButtonType[];
  maxButtonsPerCard: number;
  maxCards: number;
  /** Characters of a text payload. */
  maxTextLength: number;
  notifications: readonly NotificationType[];
  /** `sync`: the platform is called inside the Send Message request; `async`: a queued job sends it. */
  delivery: 'sync' | 'async';
  /** How a Send Message request may name the contact. */
  contactForms: readonly ContactForm[];
}

/** The contact a message goes to, as the platform knows it. */
export interface Recipient {
  id: string;
  /** The platform's own id of the user, when known. */
  externalId: string | null;
  phoneNumber: string | null;
  userRef: string | null;
  email: string | null;
  name: string | null;
  /** Given with a send by phone number: helps the platform match the user. */
  firstName?: string;
  lastName?: string;
}

export interface OutboundMessage {
  id: string;
  content: Content;
  metadata?: Record<string, unknown>;
}

/** What the platform answered to a send. */
export interface SendReceipt {
  /** The platform's id of the message (matches later delivery and read receipts). */
  externalId: string | null;
  /** The platform's id of the user, when the send revealed it (e.g. a send by phone number). */
  contactExternalId?: string | null;
}

/** One call a platform made to the service, as received: the signature is checked on `rawBody`. */
export interface InboundCall {
  method: string;
  /** For `channel` scope: the last path segment (`/v1/inbound/{channel_id}/{endpoint}`). */
  endpoint: string | null;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  rawBody: Buffer;
}

/** The end user an inbound event is about, as the platform names them. */
export interface InboundUser {
  /** The platform's own id of the user (page-scoped id, chat id). */
  externalId?: string;
  /** socialnet_chat checkbox opt-in: stands in for the id until a real one is known. */
  userRef?: string;
  /** As the platform gave it (normalised to E.164 by the domain). */
  phoneNumber?: string;
  name?: string;
  /** Extra profile fields the platform sent along (username, language, ...). */
  profile?: Record<string, unknown>;
}

/** A file the platform holds: `ref` is what `fetchMedia` needs to download it (a URL, a file id). */
export interface InboundMedia {
  ref: string;
  name?: string;
  mimeType?: string;
}

export type InboundContent =
  | {
      type: 'text';
      text: string;
      /** The payload of a tapped quick reply, when the platform delivers it. */
      quickReplyPayload?: string;
      /** The platform delivers a tapped quick reply as its title only: match it against the last quick replies sent. */
      matchQuickReplies?: boolean;
    }
  | { type: 'image' | 'video' | 'audio' | 'file'; media: InboundMedia; caption?: string }
  | { type: 'location'; latitude: number; longitude: number };

interface InboundBase {
  /** For platforms with one callback for many channels: which channel the event is for (e.g. the page id). */
  channelKey?: string;
  user: InboundUser;
  /** When the platform says it happened (ms), or null when it does not say. */
  at: number | null;
}

/**
 * The platform's identity of an event that stores no message (its id, else fields of the signed
 * payload that name it, the same on every delivery of the event): the service reports an event
 * with a key once per channel. Without a key a repeated call is reported again.
 */
interface Keyed {
  eventKey?: string;
}

/**
 * What platforms tell the service, in neutral terms. Connectors drop what the service does not
 * report. A repeated call makes no second event: messages and echoes are kept once by
 * `externalId`, postbacks and opt-ins by `eventKey`, and receipts report only marks that change.
 */
export type InboundEvent =
  | (InboundBase & { kind: 'message'; externalId: string; content: InboundContent })
  /** A message someone else sent to the user from the platform (another app, the page inbox); not the service's own. */
  | (InboundBase & { kind: 'echo'; externalId: string; content: InboundContent; platformMetadata?: string })
  /** Messages the service sent were delivered: those named, and every one sent up to `watermark` (ms). */
  | (InboundBase & { kind: 'delivered'; messageIds: string[]; watermark: number | null })
  /** Every message sent up to `watermark` (ms) was read. */
  | (InboundBase & { kind: 'read'; watermark: number })
  /**
   * A button was pressed. `buttonRef` instead of a payload when the platform could not carry the
   * payload itself: the button's index in the message the service sent (`messageExternalId`).
   */
  | (InboundBase & Keyed & { kind: 'postback'; payload?: string; buttonRef?: { messageExternalId: string; index: number } })
  | (InboundBase & Keyed & { kind: 'opt_in'; optInType: 'send_to_socialnet' | 'checkbox' | 'phone_number'; payload?: string });

export type InboundParse =
  | {
      ok: true;
      events: InboundEvent[];
      /** What to answer the platform after the events are stored (default: 200, empty). */
      reply?: { contentType: string; body: string };
    }
  /** Refused before anything is stored: a bad or missing signature, an unreadable body. */
  | { ok: false; status: 400 | 401 | 403 | 404; message: string };

/** A downloaded file. */
export interface FetchedMedia {
  bytes: Uint8Array;
  mimeType: string;
  name: string;
}

/** What the platform knows about a user (Get Contact). */
export interface PlatformProfile {
  name?: string;
  gender?: string;
  timeZone?: string | number;
  photo?: InboundMedia;
  /** Further fields worth keeping (first_name, locale, ...). */
  extra?: Record<string, unknown>;
}

export interface Connector {
  readonly type: ChannelType;
  /**
   * Where the platform calls the service: `channel` (one URL per channel,
   * `/v1/inbound/{channel_id}/{endpoint}`) or `app` (one URL for the whole platform app,
   * `/v1/inbound/{type}`, the events naming their channel by `channelKey`).
   */
  readonly inboundScope?: 'channel' | 'app';
  /**
   * Reads one inbound call after checking its signature on the raw body (constant-time). For
   * `app` scope `channel` is null. Pure: nothing is stored or fetched.
   */
  parseInbound?(call: InboundCall, channel: ChannelContext | null): InboundParse;
  /** Answers a platform's subscription handshake (GET on the inbound URL), or null when it is not one. */
  answerHandshake?(call: InboundCall): { status: number; body: string } | null;
  /** Downloads a file the platform holds (received attachments, profile pictures). */
  fetchMedia?(channel: ChannelContext, media: InboundMedia): Promise<PlatformResult<FetchedMedia>>;
  /** Reads the user's profile from the platform. */
  fetchProfile?(channel: ChannelContext, recipient: Recipient): Promise<PlatformResult<PlatformProfile>>;
  /** For `app` scope: the field of the channel's config that an event's `channelKey` names (socialnet_chat: the page `id`). */
  readonly channelKeyField?: string;
  /** Checks credentials with the platform before a channel is saved, and reads what the platform knows. */
  verifyChannel?(input: ChannelInput): Promise<PlatformResult<VerifiedChannel>>;
  /**
   * Sends one message. Synchronous types are called inside the Send Message request; asynchronous
   * ones by the send worker. The content has passed the type's capabilities already.
   */
  send?(channel: ChannelContext, recipient: Recipient, message: OutboundMessage): Promise<PlatformResult<SendReceipt>>;
  /**
   * Applies channel settings on the platform (socialnet_chat: get-started button, menu, user
   * input, whitelisted domains). `settings` is the whole new settings object (null = unset),
   * `changed` the names the request touched. A type whose settings act on the platform cannot
   * store them until this succeeds; its rate limit is reported with code `rate_limited`.
   */
  pushSettings?(channel: ChannelContext, settings: Record<string, unknown>, changed: readonly string[]): Promise<PlatformResult<null>>;
  /**
   * Sends a notification (typing, read receipt) to the contact on the platform; only types its
   * capabilities list reach it. service_chat needs none: the chat server delivers those itself.
   */
  sendNotification?(channel: ChannelContext, recipient: Recipient, notification: { type: NotificationType; payload?: unknown }): Promise<PlatformResult<null>>;
}

/** Connectors by channel type. A type with no connector yet simply has none registered. */
export class ConnectorRegistry {
  private readonly byType = new Map<ChannelType, Connector>();

  register(connector: Connector): this {
    this.byType.set(connector.type, connector);
    return this;
  }

  get(type: ChannelType): Connector | undefined {
    return this.byType.get(type);
  }
}
