import type { Store } from '../../store/store.js';
import type { SecretBox } from '../../lib/crypto.js';
import { definitionOf } from '../../channel-types/index.js';
import { decodeChannel, type Channel } from '../channels/view.js';

export interface SharedNumberDeps {
  store: Store;
  box: SecretBox;
  /** The user's number as the platform gave it, in E.164 (null when it is none). */
  phoneOf(raw: string | undefined): string | null;
}

/**
 * Replies to a number several channels send from (SMS channels whose sender id is not a number:
 * the provider sends their messages from a number it shares, and posts the replies to that
 * number's one receive URL, i.e. to one of the channels).
 *
 * A received message is a reply to a shared number when its type's definition has `ownNumber`
 * and the channel called has no number of its own, or the message names a number it was sent to
 * that is not the channel's. Such a reply goes to the contact with the sender's number that the
 * latest message taken by the platform (status `sent`, delivered or not) went to, among the
 * channel called and the account's other channels of the same type and mode without a number of
 * their own; when none of them ever sent to that number, it stays on the channel called (which
 * makes the contact, as for any first message). A message already stored on one of them (a
 * repeated callback, even after a later send from another channel) stays where it is.
 */
export class SharedNumberReplies {
  constructor(private readonly deps: SharedNumberDeps) {}

  /** The channel a received message belongs to: the one called, unless it is a reply to a shared number. */
  async channelFor(channel: Channel, message: { externalId: string; to?: string; phoneNumber?: string }): Promise<Channel> {
    const ownNumber = definitionOf(channel.type).ownNumber;
    if (!ownNumber) return channel;
    const phone = this.deps.phoneOf(message.phoneNumber);
    if (!phone) return channel;
    const own = ownNumber(channel.config);
    if (own !== null && (message.to === undefined || this.sameNumber(own, message.to))) return channel;
    const { store, box } = this.deps;
    const others = (await store.channels.ofType(channel.accountId, channel.type))
      .filter((row) => String(row.id) !== channel.id && row.mode === channel.mode)
      .map((row) => decodeChannel(row, box))
      .filter((c) => ownNumber(c.config) === null);
    if (others.length === 0) return channel;
    const candidates = [channel, ...others];
    const ids = candidates.map((c) => Number(c.id));
    const storedOn = await store.messages.receivedOn(channel.accountId, ids, message.externalId);
    const last = storedOn === undefined ? await store.messages.lastSentToPhone(channel.accountId, ids, phone) : undefined;
    const target = storedOn ?? last?.channel_id;
    return candidates.find((c) => Number(c.id) === target) ?? channel;
  }

  private sameNumber(a: string, b: string): boolean {
    const digits = (s: string) => s.replace(/\D/g, '');
    return digits(a) === digits(b);
  }
}
