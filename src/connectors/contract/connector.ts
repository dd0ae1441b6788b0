import type { ChannelType } from '../../schemas/channel-types.js';
import type { AppInbound, ChannelInbound, HandshakeAnswerer } from './inbound.js';
import type {
  ChannelRegistrar,
  ChannelReleaser,
  ChannelStateReader,
  ChannelStateRequester,
  ChannelTesters,
  ChannelVerifier,
  SettingsPusher,
} from './channel-setup.js';
import type { ContentChecker, LocalPush, NotificationSender, Sender } from './outbound.js';
import type { MediaFetcher, ProfileReader } from './platform-reads.js';
import type { SentLookup } from './sent-lookup.js';

/**
 * The roles a connector may play, by name. A connector implements the roles its platform has and
 * no others; the domain asks the registry for a role (`connectors.role(type, 'sender')`) and gets
 * the role's interface or nothing, never an object of optional methods.
 */
export interface ConnectorRoles {
  /** Sends messages (synchronous types inside the request, asynchronous ones from the send worker). */
  sender: Sender;
  /** Checks a queued message's files before it is stored (their size and address). */
  contentCheck: ContentChecker;
  /** Finds a message the platform already accepted under the service's reference (a retried send after an unknown outcome). */
  sentLookup: SentLookup;
  /** Sends typing indicators and read receipts to the platform. */
  notifications: NotificationSender;
  /** The service itself is the platform: pushes stored messages and notifications to open connections after the commit. */
  localPush: LocalPush;
  /** Receives calls on a channel's own URL, on the endpoints it declares. */
  channelInbound: ChannelInbound;
  /** Receives calls on one URL for the whole platform app. */
  appInbound: AppInbound;
  /** Answers the platform's subscription handshake (GET on the app's URL). */
  handshake: HandshakeAnswerer;
  /** Downloads files the platform holds. */
  media: MediaFetcher;
  /** Reads a user's profile. */
  profiles: ProfileReader;
  /** Checks credentials (and registers callbacks) before a channel is saved. */
  verifier: ChannelVerifier;
  /** Registers the saved channel's inbound URL with a platform that calls it to check it first. */
  registrar: ChannelRegistrar;
  /** Removes what the verifier registered on the platform when the channel is deleted. */
  release: ChannelReleaser;
  /** Applies channel settings on the platform. */
  settings: SettingsPusher;
  /** Reads the channel's state on the platform (rbm agent life cycle, socialnet_chat page connection). */
  channelState: ChannelStateReader;
  /** Moves the channel on in the platform's life cycle. */
  channelStateRequests: ChannelStateRequester;
  /** Invites, lists and removes the channel's testers on the platform. */
  testers: ChannelTesters;
}

export type RoleName = keyof ConnectorRoles;

export const ROLE_NAMES = [
  'sender',
  'contentCheck',
  'sentLookup',
  'notifications',
  'localPush',
  'channelInbound',
  'appInbound',
  'handshake',
  'media',
  'profiles',
  'verifier',
  'registrar',
  'release',
  'settings',
  'channelState',
  'channelStateRequests',
  'testers',
] as const satisfies readonly RoleName[];

/**
 * One platform's connector: the roles it plays. `Connector<'sender' | 'media'>` has exactly
 * those roles (a connector's own type says which it has); plain `Connector` is any connector, each
 * role present or not.
 */
export interface Connector<R extends RoleName = never> {
  readonly type: ChannelType;
  readonly roles: [R] extends [never] ? Partial<ConnectorRoles> : { readonly [K in R]: ConnectorRoles[K] };
}

/** Builds a connector; its type keeps the exact roles given. */
export function defineConnector<R extends RoleName>(type: ChannelType, roles: { readonly [K in R]: ConnectorRoles[K] }): Connector<R> {
  return { type, roles } as Connector<R>;
}
