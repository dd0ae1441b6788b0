import type { ChannelType } from '../schemas/channel-types.js';
import type { MessageFailedCode } from '../schemas/message-status.js';
import type { SettingsFragment } from '../lib/env-settings.js';
import type { ChannelStateReports, Connector } from '../connectors/connector.js';
import type { MediaDownloader } from '../connectors/media-download.js';
import type { TrialDriver } from '../trial/driver.js';
import type { StandIn } from '../../sandbox/shared/standin.js';
import type { ChannelTypeDefinition } from './definition.js';

/**
 * One channel type as a whole: everything the service and its tools know about it, exported by
 * the type's own folder (`src/connectors/<type>/module.ts`) and listed once in
 * `channel-types/modules.ts`. Every registry (definitions, connectors, settings fragments,
 * failure codes, stand-in ports, trial drivers, settings schemas) is derived from that list.
 */
export interface ChannelTypeModule<T extends ChannelType = ChannelType, S = any> {
  readonly type: T;
  /** What is static about the type: data and pure rules, no I/O (definition.ts). */
  readonly definition: ChannelTypeDefinition;
  /** The connector's environment variables (its config.ts), checked at start; none when it has no settings. */
  readonly settings?: SettingsFragment<any, S>;
  /**
   * Builds the connector from its settings. Absent for service_chat, whose platform is the
   * service itself: the runtime gives its connector the push port of the chat server.
   */
  connector?(settings: S, context: ConnectorContext): Connector;
  /** The platform's own base URLs, whose files are downloaded without MEDIA_ALLOWLIST naming them. */
  mediaSources?(settings: S): readonly string[];
  /**
   * Which `message_failed` code a refusal amounts to, by the platform's code (`code` or
   * `code/subcode`, the main code deciding when the whole one is not listed): 2 the user blocks
   * the sender, 3 the platform knows no such user, 4 the message's time ran out. Anything else is 1.
   */
  readonly failureCodes?: Readonly<Record<string, MessageFailedCode>>;
  /** The local stand-in of the platform (`npm run sandbox`), when the type has one. */
  readonly standIn?: StandInSpec;
  /** The administration app's local trial: the stand-in acting as an end user, when it can. */
  trial?(settings: S, timeoutMs: number): TrialDriver;
}

/** Where a type's stand-in listens and how the server is pointed at it. */
export interface StandInSpec {
  /** The stand-in's folder under sandbox/ and its name in `npm run sandbox`. */
  readonly name: string;
  /** Its port above SANDBOX_PORT_BASE; fixed once given, since local set-ups name the ports. */
  readonly portOffset: number;
  /** The server variable that points the connector elsewhere (it wins over SANDBOX_PORT_BASE). */
  readonly urlVariable: string;
  /**
   * Its maker, from its folder under sandbox/ (`npm run sandbox` and the tests ask for it). A
   * dynamic import: the service itself never loads sandbox code.
   */
  load(): Promise<() => RunnableStandIn>;
}

/** A stand-in as made, and the server settings that must match its accounts (besides its URL). */
export interface RunnableStandIn {
  readonly standIn: StandIn<unknown>;
  serverEnv?(): Record<string, string>;
}

/** What every connector is given besides its own settings. */
export interface ConnectorContext {
  /** `{base_url}`: the service's public address ending in /v1. */
  readonly publicUrl: string;
  /** The URL a platform calls for one channel: `{base_url}/inbound/{channel_id}/{endpoint}`. */
  inboundUrl(channelId: string, endpoint: string): string;
  /** The deadline of each platform call (PLATFORM_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** The service's clock (ms), for platform signatures with a time. */
  now(): number;
  /** Received files, through the address guard, from the platforms and MEDIA_ALLOWLIST. */
  readonly media: MediaDownloader;
  /** MEDIA_ALLOWLIST with every platform's own host, for connectors that download by themselves. */
  readonly mediaAllowlist: readonly string[];
  /** Where connectors report channel states their calls revealed (a disconnected page). */
  readonly channelStates?: ChannelStateReports;
}

/** A type's module, with the type of its settings inferred for its connector and trial driver. */
export function defineTypeModule<T extends ChannelType, S = undefined>(module: ChannelTypeModule<T, S>): ChannelTypeModule<T, S> {
  return module;
}
