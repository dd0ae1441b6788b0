import type { ChannelMode, ChannelType } from '../schemas/channel-types.js';

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
  type: ChannelType;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}

export interface Connector {
  readonly type: ChannelType;
  /** Checks credentials with the platform before a channel is saved, and reads what the platform knows. */
  verifyChannel?(input: ChannelInput): Promise<PlatformResult<VerifiedChannel>>;
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
