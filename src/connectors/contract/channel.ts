import type { ChannelMode, ChannelType } from '../../schemas/channel-types.js';

/**
 * The channel a connector call is about. Connectors keep no channel state of their own: the
 * channel's configuration and decrypted credentials come in with each call.
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

/** The context of a channel as the domain holds it (its mode is a string there). */
export function channelContextOf(channel: {
  id: string;
  type: ChannelType;
  mode: string;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}): ChannelContext {
  return { id: channel.id, type: channel.type, mode: channel.mode as ChannelMode, config: channel.config, secrets: channel.secrets };
}

/** The contact a message or notification goes to, as the platform knows it. */
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
