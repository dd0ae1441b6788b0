import type { Readable } from 'node:stream';

/**
 * What platforms tell the service, in neutral terms. Connectors drop what the service does not
 * report. A repeated call makes no second event: messages and echoes are kept once by
 * `externalId`, postbacks and opt-ins by `eventKey`, and receipts report only marks that change.
 */

/** The end user an inbound event is about, as the platform names them. */
export interface InboundUser {
  /** The platform's own id of the user (page-scoped id, chat id). */
  externalId?: string;
  /** socialnet_chat checkbox opt-in: stands in for the id until a real one is known. */
  userRef?: string;
  /** As the platform gave it (normalised to E.164 by the domain). */
  phoneNumber?: string;
  /** An e-mail address (inbound mail's sender). */
  email?: string;
  name?: string;
  /** Extra profile fields the platform sent along (username, language, ...). */
  profile?: Record<string, unknown>;
  /**
   * The platform sent the user's whole current profile (a subscription): a known contact takes
   * its name and profile fields, not only a new one.
   */
  refresh?: boolean;
  /** The user's picture, copied into the file store and shown as the contact's `photo_url`. */
  photo?: PlatformFile;
}

/** A file the platform holds: `ref` is what the connector's `fetchMedia` needs to download it (a URL, a file id). */
export interface PlatformFile {
  ref: string;
  name?: string;
  mimeType?: string;
}

/** A file that came in the call's own body (inbound mail's attachments, multipart forms): nothing to download. */
export interface AttachedFile {
  bytes: Uint8Array;
  name: string;
  mimeType: string;
}

/**
 * A file that came in a body the route read as a stream (a streamed form, inbound-call.ts): staged
 * on disk until the call is answered, read with `open`.
 */
export interface StagedFile {
  name: string;
  mimeType: string;
  size: number;
  open(): Readable;
}

export type InboundMedia = PlatformFile | AttachedFile | StagedFile;

export function isAttachedFile(media: InboundMedia): media is AttachedFile {
  return 'bytes' in media;
}

export function isStagedFile(media: InboundMedia): media is StagedFile {
  return 'open' in media;
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
 * payload that name it, the same on every call that reports the event): the service reports an event
 * with a key once per channel. Without a key a repeated call is reported again.
 */
interface Keyed {
  eventKey?: string;
}

export const REPORTED_STATUSES = ['sent', 'delivered', 'failed', 'expired'] as const;
export type ReportedStatus = (typeof REPORTED_STATUSES)[number];

/**
 * One message's status as the platform reports it (SMS status reports, mail events, business
 * messaging callbacks, rich messaging TTL revocations). Reports may come several times, out of
 * order and duplicated: `final` says whether a later report may still change the status.
 */
export interface StatusReport {
  /** The platform's id of the message: one of the send receipt's `externalIds`. */
  messageExternalId: string;
  /**
   * The service's own id of the message, where the platform echoes what it was sent with (an SMS
   * `reference`): a report that comes before the send's result was recorded still finds its message.
   */
  messageReference?: string;
  status: ReportedStatus;
  /** True for `delivered`, `expired` and permanent failures; false for `sent` (buffered, accepted) and temporary failures. */
  final: boolean;
  /** The platform's own code of the status (an error code, a delivery-status code), kept as text. */
  platformCode?: string;
  /** The platform's reason, for logs and the failure's message; never classified by its text. */
  reason?: string;
}

/** Why the user stopped the sender: a STOP keyword (or its code), an unsubscribe, a block, a complaint. */
export const OPT_OUT_REASONS = ['stop', 'unsubscribed', 'blocked', 'complaint'] as const;
export type OptOutReason = (typeof OPT_OUT_REASONS)[number];

/**
 * How the user opted in: socialnet_chat's plugin, checkbox, accepted phone number and a short link
 * (or ad) that opened the existing thread (`referral`, `payload`: its ref); appmsg's subscription
 * and opened conversation (`payload`: the deep link's context).
 */
export type OptInType = 'send_to_socialnet' | 'checkbox' | 'phone_number' | 'referral' | 'subscribed' | 'conversation_started';

export type InboundEvent =
  /**
   * A message from the user. `to`: the address the user wrote to, where the platform names it (an
   * SMS's recipient number): a reply to a number several channels send from is routed by it.
   */
  | (InboundBase & {
      kind: 'message';
      externalId: string;
      content: InboundContent;
      to?: string;
      /** Metadata the message is stored and reported with (an inbound mail's subject and recipients). */
      metadata?: Record<string, unknown>;
    })
  /** A message someone else sent to the user from the platform (another app, the page inbox); not the service's own. */
  | (InboundBase & { kind: 'echo'; externalId: string; content: InboundContent; platformMetadata?: string })
  /** Messages the service sent were delivered: those named, and every one sent up to `watermark` (ms). */
  | (InboundBase & { kind: 'delivered'; messageIds: string[]; watermark: number | null })
  /**
   * Every message sent up to `watermark` (ms) was read. A platform that names the message read
   * instead gives its id (`messageExternalId`): the watermark is then that message's time, and
   * `watermark` only stands in when the service does not know the message.
   */
  | (InboundBase & { kind: 'read'; watermark: number; messageExternalId?: string })
  /**
   * A button was pressed. `buttonRef` instead of a payload when the platform could not carry the
   * payload itself: the button's index in the message the service sent (`messageExternalId`).
   */
  | (InboundBase & Keyed & { kind: 'postback'; payload?: string; buttonRef?: { messageExternalId: string; index: number } })
  | (InboundBase & Keyed & { kind: 'opt_in'; optInType: OptInType; payload?: string })
  /** A per-message status report of an asynchronous platform (see StatusReport). */
  | (InboundBase & Keyed & { kind: 'status'; report: StatusReport })
  /** The user asked not to get messages any more (a STOP reply, an unsubscribe, a block). */
  | (InboundBase & Keyed & { kind: 'opt_out'; reason: OptOutReason; platformCode?: string });

/**
 * A body bound to a signature that does not cover it (inbound mail signs a timestamp and a nonce
 * only): the service keeps the first body's digest under `key` until `expiresAt` (ms) in the store,
 * for every instance, and refuses the same signature over another body as it refuses a bad one.
 */
export interface SignatureBinding {
  /** Names the signature without revealing it (a hash of the key and the nonce). */
  key: string;
  /** Hex SHA-256 of the raw body. */
  bodyDigest: string;
  /** When the signature stops being accepted (ms). */
  expiresAt: number;
}

export type InboundParse =
  | {
      ok: true;
      events: InboundEvent[];
      /** What to answer the platform after the events are stored (default: 200, empty). A handshake by POST answers here. */
      reply?: { contentType: string; body: string };
      /** Claimed in the store before anything is applied; a claim lost to another body refuses the call. */
      binding?: SignatureBinding;
    }
  /** Refused before anything is stored: a bad or missing signature, an unreadable body. */
  | { ok: false; status: 400 | 401 | 403 | 404; message: string };
