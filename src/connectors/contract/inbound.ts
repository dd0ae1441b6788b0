import type { ChannelContext } from './channel.js';
import type { InboundCall, InboundEndpoint } from './inbound-call.js';
import type { InboundParse } from './inbound-events.js';

/**
 * A platform that calls one URL per channel: `/v1/inbound/{channel_id}/{endpoint}`. The
 * connector declares its endpoints and their methods; a call to any other endpoint or with
 * another method answers the same 404 as an unknown channel. `parse` checks the call against
 * the channel's own secret (in constant time) before reading it, and is pure: nothing is stored
 * or fetched.
 */
export interface ChannelInbound {
  readonly endpoints: readonly InboundEndpoint[];
  parse(call: InboundCall, channel: ChannelContext): InboundParse;
}

/**
 * A platform that calls one URL for the whole platform app, `/v1/inbound/{type}`, its events
 * naming their channel by `channelKey`: the value of the channel config's `channelKeyField`
 * (socialnet_chat: the page `id`). `parse` checks the app's signature and is pure.
 */
export interface AppInbound {
  readonly channelKeyField: string;
  parse(call: InboundCall): InboundParse;
}

/** Answers a platform's subscription handshake by GET on the app's URL, or null when the call is not one. */
export interface HandshakeAnswerer {
  answerHandshake(call: InboundCall): { status: number; body: string } | null;
}
