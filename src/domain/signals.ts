import { Signals } from '../lib/signals.js';
import type { ChannelContext, PlatformChannelState } from '../connectors/connector.js';
import type { MessageView } from '../schemas/content.js';
import type { Channel } from './channels/view.js';

/** A sent message after its commit. */
export interface StoredMessage {
  channel: Channel;
  contactId: string;
  message: MessageView;
}

/**
 * Every in-process signal by name, with its payload: the one way the services tell this process's
 * caches and workers what happened, always after the commit of what it reports. The runtime's
 * wiring (src/wiring/) adds the listeners; grep a name to find who emits and who listens.
 */
export interface SignalMap {
  /** A sent message committed (MessageService.send): counted, and pushed by a type's `localDelivery` role. */
  messageStored: StoredMessage;
  /** Events (and their webhook deliveries) committed (Outbox.wake): the webhook worker claims them. */
  webhooksDue: void;
  /** Jobs committed (a send job, an NLP training): the job runners claim them; PostgreSQL tells the other processes. */
  jobsDue: void;
  /** A channel was created (`previous` null) or updated through the API (ChannelService). */
  channelSaved: { channel: Channel; previous: Channel | null };
  /** A channel, its settings or its platform state changed, or it was deleted: per-process caches drop it. */
  channelChanged: { channelId: string };
  /** The channel cache dropped a channel (ChannelCache.forget): what else is held per channel goes too. */
  channelForgotten: { channelId: number };
  /** A connector's ordinary call revealed a channel's state on its platform (a page whose token was refused). */
  channelStateReported: { channel: ChannelContext; state: PlatformChannelState };
  /** A contact's addressing or profile changed (inbound, profiles): the send path's contact cache drops it. */
  contactChanged: { contactId: number };
  /** A channel's NLP training state or model changed (the training job): the classifier drops what it holds. */
  nlpModelChanged: { channelId: number };
}

export type DomainSignals = Signals<SignalMap>;

/** The process's one signal object, made first and handed to whatever emits or listens. */
export function createSignals(onError: (error: unknown, name: keyof SignalMap) => void): DomainSignals {
  return new Signals<SignalMap>(onError);
}
