import { ApiError } from '../../lib/errors.js';
import type { Channel } from '../channels/view.js';
import type { DomainSignals } from '../signals.js';

export interface ChannelSource {
  get(accountId: number, id: number): Promise<Channel>;
}

/**
 * Channels by id, per process: the send path reads no channel row while the entry lives.
 * The `channelChanged` signal drops an entry when this process changes or deletes the channel (the
 * runtime's wiring calls `forget`); the time to live bounds how long a change made by another
 * instance can go unseen. Dropping an entry signals `channelForgotten`.
 */
export class ChannelCache {
  private readonly entries = new Map<number, { channel: Channel; expires: number }>();
  constructor(
    private readonly source: ChannelSource,
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly signals: DomainSignals,
  ) {}

  /** The account's channel, or undefined when it has none with this id. */
  async find(accountId: number, id: number): Promise<Channel | undefined> {
    const hit = this.entries.get(id);
    if (hit && hit.expires > this.now()) return hit.channel.accountId === accountId ? hit.channel : undefined;
    try {
      const channel = await this.source.get(accountId, id);
      if (this.ttlMs > 0) {
        if (this.entries.size > 10_000) this.entries.clear();
        this.entries.set(id, { channel, expires: this.now() + this.ttlMs });
      }
      return channel;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return undefined;
      throw error;
    }
  }

  /** The account's channel, or 404 (for paths that name the channel). */
  async get(accountId: number, id: number): Promise<Channel> {
    const channel = await this.find(accountId, id);
    if (!channel) throw ApiError.notFound('Channel');
    return channel;
  }

  forget(id: number): void {
    this.entries.delete(id);
    this.signals.emit('channelForgotten', { channelId: id });
  }
}
