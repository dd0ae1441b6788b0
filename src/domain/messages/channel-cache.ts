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
 * Concurrent lookups of one channel by one account share one read: when an entry expires under
 * load, the requests waiting for it would otherwise each read the same row (on PostgreSQL, a
 * queue of identical queries ahead of the writes).
 */
export class ChannelCache {
  private readonly entries = new Map<number, { channel: Channel; expires: number }>();
  /** Reads under way, by account and channel id. */
  private readonly reading = new Map<string, Promise<Channel | undefined>>();
  /** Bumped by `forget`: a read that began before it does not fill the cache with what it read. */
  private generation = 0;

  constructor(
    private readonly source: ChannelSource,
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly signals: DomainSignals,
  ) {}

  /** The account's channel, or undefined when it has none with this id. */
  find(accountId: number, id: number): Promise<Channel | undefined> {
    const hit = this.entries.get(id);
    if (hit && hit.expires > this.now()) return Promise.resolve(hit.channel.accountId === accountId ? hit.channel : undefined);
    const key = `${accountId}:${id}`;
    let read = this.reading.get(key);
    if (!read) {
      read = this.read(accountId, id).finally(() => {
        if (this.reading.get(key) === read) this.reading.delete(key);
      });
      this.reading.set(key, read);
    }
    return read;
  }

  private async read(accountId: number, id: number): Promise<Channel | undefined> {
    const generation = this.generation;
    try {
      const channel = await this.source.get(accountId, id);
      if (this.ttlMs > 0 && generation === this.generation) {
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
    this.generation += 1;
    // Requests from now on read the channel afresh rather than join a read from before the change.
    for (const key of [...this.reading.keys()]) if (key.endsWith(`:${id}`)) this.reading.delete(key);
    this.signals.emit('channelForgotten', { channelId: id });
  }
}
