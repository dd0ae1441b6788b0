import type { ChannelMode, ChannelType } from '../../schemas/channel-types.js';
import type { ChannelContext } from './channel.js';
import type { PlatformResult } from './result.js';

/** A channel being created or updated, before it is saved. */
export interface ChannelInput {
  /** The channel's id (already chosen on create), for platforms that must be told where to call back. */
  id?: string;
  type: ChannelType;
  /** The mode the channel will be in: a platform whose test mode never calls it may skip the check (it is made when the channel leaves test mode). */
  mode?: ChannelMode;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}

/** What a channel type's credential check gives back: fields read from the platform. */
export interface VerifiedChannel {
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}

/** Checks credentials with the platform before a channel is saved, reads what the platform knows, and registers the service's callback URL. */
export interface ChannelVerifier {
  verifyChannel(input: ChannelInput): Promise<PlatformResult<VerifiedChannel>>;
}

/**
 * Points the platform's callbacks at a channel's inbound URL once the channel is saved, for
 * platforms that call the URL to check it before they accept it (the channel must exist to answer
 * that call). Called after a create, and after an update that changed the credentials with what
 * the channel was before (`previous`): a registration of another platform account is removed. A
 * failure undoes the save (a refusal 422, a platform that is down 502).
 */
export interface ChannelRegistrar {
  registerChannel(channel: ChannelContext, previous: ChannelContext | null): Promise<PlatformResult<null>>;
}

/**
 * Undoes on the platform what the verifier registered for a channel (an inbound route, event
 * webhooks) once the channel is deleted. Best effort: the channel is gone whatever it answers.
 */
export interface ChannelReleaser {
  releaseChannel(channel: ChannelContext): Promise<PlatformResult<null>>;
}

/**
 * Applies channel settings on the platform (socialnet_chat: get-started button, menu, user
 * input, whitelisted domains). `settings` is the whole new settings object (null = unset),
 * `changed` the names the request touched. A type whose settings act on the platform cannot
 * store them until this succeeds; its rate limit is reported with code `rate_limited`.
 */
export interface SettingsPusher {
  pushSettings(channel: ChannelContext, settings: Record<string, unknown>, changed: readonly string[]): Promise<PlatformResult<null>>;
}

/**
 * A channel's state on the platform side, where the platform has a life cycle of its own (the
 * rbm agent: registered, verified, launched per region). `state` is the neutral value the
 * channel type's definition shows (rbm: `agent_state`); `platformState` the platform's own.
 */
export interface PlatformChannelState {
  state: string;
  platformState: string;
  /** Who the platform lets the channel send to now. */
  reach: 'anyone' | 'testers' | 'nobody';
  /** Why the platform did not move the channel on (a rejected launch's comment), shown with the state. */
  reason?: string;
  /** Values the platform gave that the channel keeps (the id of an agent it registered). */
  config?: Record<string, unknown>;
}

/**
 * Where a connector tells that an ordinary call (a send, a notification, a profile read) showed the
 * channel's state on the platform changed: a page whose token stopped working is disconnected.
 * The service keeps the state and announces it as it does for states it reads itself.
 */
export interface ChannelStateReports {
  report(channel: ChannelContext, state: PlatformChannelState): void;
}

/** Reads the channel's state from the platform. */
export interface ChannelStateReader {
  readState(channel: ChannelContext): Promise<PlatformResult<PlatformChannelState>>;
}

/** Asks the platform to move the channel on in its life cycle (register the agent, request its launch); answers the state it is in now. */
export interface ChannelStateRequester {
  requestState(channel: ChannelContext, wanted: string): Promise<PlatformResult<PlatformChannelState>>;
}

/** A tester's answer to the invitation, as the platform reports it. */
export type TesterState = 'pending' | 'accepted' | 'declined';

export interface Tester {
  phoneNumber: string;
  state: TesterState;
}

/**
 * The phone numbers a channel may send to before the platform lets it reach anyone (rbm testers
 * of an agent that is not launched): invited on the platform, which reports their answer.
 */
export interface ChannelTesters {
  invite(channel: ChannelContext, phoneNumber: string): Promise<PlatformResult<Tester>>;
  list(channel: ChannelContext): Promise<PlatformResult<Tester[]>>;
  remove(channel: ChannelContext, phoneNumber: string): Promise<PlatformResult<null>>;
}
