import type { TObject, TProperties, TSchema } from '@sinclair/typebox';
import type { ChannelMode, ChannelType } from '../schemas/channel-types.js';
import type { ContactView, Content, Metadata } from '../schemas/content.js';
import type { Capabilities } from '../connectors/connector.js';
import type { ChannelTypeUi } from './ui.js';

export type { Capabilities };

/**
 * Everything the service knows about one channel type, in one place: the domain asks the
 * definition and names no platform. Each type's definition lives in its module folder
 * (connectors/<type>/definition.ts), listed in modules.ts (docs/connectors.md, adding a type).
 * Definitions are data and pure functions: no I/O; what a rule needs from the store (e.g. the
 * contact's last activity) the domain reads and passes in.
 */
export interface ChannelTypeDefinition {
  type: ChannelType;
  /** The modes the type takes; production everywhere, and the default. */
  modes: readonly ChannelMode[];
  /** What the type can send and how (sync or async); also the contact forms a send may use. */
  capabilities: Capabilities;
  /** The type's own object in Create and Update Channel requests. */
  input: ChannelInputSpec;
  /** The type's own part of the Channel object. */
  view: ChannelViewSpec;
  /** Rules of Update Channel beyond the schema. */
  update: UpdateRules;
  /** Which optional fields a contact of this type shows. */
  contactView: ContactViewSpec;
  /** Rules of a Send Message on this type beyond the capabilities. */
  send: SendPolicies;
  settings: SettingsSpec;
  /**
   * Endpoint names of `/inbound/{channel_id}/{endpoint}` for platforms that call one URL per
   * channel; empty when the platform calls a URL of its own (or none).
   */
  inboundEndpoints: readonly string[];
  /** Contacts talk through this service's own chat server (the web chat). */
  webChat: boolean;
  /** The platform reports when a contact read a message (read receipts): a failover step may wait for a read. */
  reportsRead?: boolean;
  /** Types whose channels have a life cycle on the platform (the rbm agent): how the service follows it. */
  platformState?: PlatformStateSpec;
  /**
   * Types whose channels may send from a number the provider shares between them (SMS with a
   * sender id that is not a number): the channel's own number as configured, or null when its
   * messages go out from a shared one. A reply that reaches a channel with no number of its own,
   * or names a number that is not the channel's, is a reply to a shared number: the domain gives
   * it to the channel that last sent to its sender.
   */
  ownNumber?(config: Record<string, unknown>): string | null;
  /** How the administration app shows the type (served by its channel-types route). */
  ui: ChannelTypeUi;
}

/**
 * A channel state the platform moves (the rbm agent's): the client writes a requested state, the
 * service asks the platform and checks in the background (with back-off) until the platform has
 * answered, keeping what it says in the configuration.
 */
export interface PlatformStateSpec {
  /** Configuration key of the state (shown in the channel's own object). */
  key: string;
  /** States in which the platform is asked for something and checked until it answers. */
  requested: readonly string[];
  /** Configuration key of the platform's reason for the state (a rejection), when it gives one. */
  reasonKey: string;
  /** Configuration key of the testers' answers (`{phone: state}`), kept for the send rules. */
  testersKey: string;
}

export interface ChannelInputSpec {
  /** Property of the request and of the Channel object that holds the type's own object. */
  key?: string;
  /** The type's own object in a create request (an update takes every field optional). */
  schema?: TObject;
  /** Fields of the type object that are credentials (encrypted at rest). */
  secretFields: readonly string[];
  /** Whether the type object is required on create. */
  required: boolean;
  /** Top-level request properties beyond the common ones, on create and update (all optional). */
  extraFields?: TProperties;
  /**
   * Checks and completes the stored configuration of a new channel (defaults, the first state of
   * a platform-side life cycle, extra top-level fields). Throws ApiError in the API's wording.
   */
  prepareCreate?(config: Record<string, unknown>, body: Record<string, unknown>): void;
}

export type Placement = 'get' | 'list';

export interface ChannelViewInput {
  /** Stored configuration (without `region`) and credentials, merged. */
  own: Record<string, unknown>;
  /** The stored `region` (a top-level request field of some types). */
  region: unknown;
  /** Get Channel, or list/create/update responses (the specification places some fields differently). */
  placement: Placement;
  /** The URL the platform calls for one of `inboundEndpoints`. */
  inboundUrl(endpoint: string): string;
}

export interface ChannelViewSpec {
  /** Schema of the type's own object in the Channel object (under `input.key`). */
  schema?: TSchema;
  /** The type's fields of the Channel object, in the order they are shown. */
  render(input: ChannelViewInput): Record<string, unknown>;
}

export interface UpdateRules {
  /** Configuration keys whose change makes the service verify the credentials again (credentials always do). */
  reverifyKeys: readonly string[];
  /** Keys of the type object an update does not copy into the configuration: `apply` handles them. */
  ownKeys: readonly string[];
  /**
   * Applies the type's own update rules to the configuration being built (state transitions,
   * extra top-level fields). `patch` is the type object of the request, when one was given.
   */
  apply?(config: Record<string, unknown>, patch: Record<string, unknown> | undefined, body: Record<string, unknown>): void;
}

/** The stored contact fields a contact view is made from. */
export interface ContactFields {
  user_ref: string | null;
  /** The platform's profile, as stored JSON. */
  profile: string;
}

export interface ContactViewSpec {
  /** The stored phone number is shown. */
  phoneNumber: boolean;
  /** The stored e-mail address is shown. */
  email: boolean;
  /** Further fields of the type (shown after the phone number). */
  extra?(contact: ContactFields): Partial<ContactView>;
}

/** The contact's last activity, for rules that depend on a messaging window. */
export interface ContactActivity {
  /** Time of the contact's last inbound activity, or null when it never wrote. */
  lastInboundAt: number | null;
  /** Time of the last message sent to the contact that the platform took. */
  lastSentAt: number | null;
}

/** What the domain knows about a direct send when it applies the type's metadata defaults. */
export interface DirectSendFacts {
  /** The request named the contact by phone number. */
  byPhoneNumber: boolean;
  /** The platform's own id of the contact is known (the contact wrote or opted in). */
  contactKnown: boolean;
}

/** Metadata a type fills in before the platform is called inside the request. */
export interface DirectSendDefaults {
  /** Whether `apply` needs the contact's last activity for these metadata (the domain reads it only then). */
  needsActivity(metadata: Metadata | undefined, facts: DirectSendFacts): boolean;
  apply(metadata: Metadata | undefined, facts: DirectSendFacts, now: number, activity: ContactActivity | null): Metadata | undefined;
}

/** The parts a platform sends one message in, and their encoding (SMS: GSM-7 or UCS-2). */
export interface SentParts {
  count: number;
  encoding: string;
}

export interface SendPolicies {
  /** Metadata keys the platform reserves; other keys are the client's own JSON. */
  reservedMetadata: readonly string[];
  /** Checks the reserved keys and gives the metadata to store (e.g. a tag in lower case). */
  checkMetadata?(metadata: Metadata): Metadata;
  /**
   * Checks a send on a channel in production mode against the platform-side state of the
   * channel (e.g. an agent that is not launched yet). `phoneNumber` is the address, when a send
   * names the contact by one.
   */
  checkProduction?(channel: { id: string; config: Record<string, unknown> }, phoneNumber: string | null): void;
  /**
   * Checks the content against limits of the platform beyond the capabilities (e.g. the SMS parts
   * of a text). Throws ApiError. Types that send a message in counted parts answer them: they are
   * stored with the message and shown on Get Message.
   */
  checkContent?(content: Content, metadata?: Metadata): SentParts | undefined;
  directDefaults?: DirectSendDefaults;
  /**
   * Asynchronous types: messages a channel sends per second at most (the send worker's throttle;
   * a burst waits in the queue). Absent: no limit of the service's own.
   */
  ratePerSecond?: number;
  /**
   * Asynchronous types whose messages have a time to live (ms from Send Message): the send job
   * expires then (the platform is given what is left), and the service itself fails a message
   * still not delivered a little after it (`message_failed` code 4), whether or not the platform
   * reports the expiry.
   */
  timeToLiveMs?(config: Record<string, unknown>, metadata: Metadata | undefined): number;
  /**
   * Asynchronous types whose messages thread (e-mail's In-Reply-To and References): how many of
   * the contact's earlier messages the send job gives the sender with each message.
   */
  conversationDepth?: number;
}

/** Rules that tie settings together, checked on the settings as they would be after the change. */
export type CrossCheck = (next: Record<string, unknown>, changed: ReadonlySet<string>) => void;

export interface SettingsSpec {
  /** Every setting of the type, in the order Get Settings shows them. */
  names: readonly string[];
  check: Record<string, (value: unknown, field: string) => void>;
  crossCheck?: CrossCheck;
  /** Whether the settings act on the platform, which must accept them before they are stored. */
  appliedOnPlatform: boolean;
  /** The documented shape of the settings object; absent when the type has no settings. */
  schema?: TObject;
  /** Parts of `schema` the OpenAPI document names (its components), so it states each shape once. */
  components?: Readonly<Record<string, TSchema>>;
}
