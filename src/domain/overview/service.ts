import type { Store } from '../../store/store.js';
import { HOUR_MS } from '../../store/repos/overview.js';
import type { Clock } from '../../lib/clock.js';
import { isoTime } from '../../lib/clock.js';
import { firstIdAt } from '../../lib/ids.js';

/** Hours the overview covers: the current one and the 23 before it. */
export const OVERVIEW_HOURS = 24;
/**
 * How far before the window the id bound reaches: an id is made from a clock read that may
 * come a little before the message's `created_at`, or on another instance whose clock is behind.
 */
const ID_MARGIN_MS = 15 * 60_000;

export interface HourCounts {
  hour: string;
  sent: number;
  received: number;
  deliveries_failed: number;
}

export interface ChannelOverview {
  id: string;
  name: string;
  type: string;
  mode: string;
  sent: number;
  received: number;
  deliveries_failed: number;
  hourly: HourCounts[];
}

export interface Overview {
  since: string;
  until: string;
  channels: ChannelOverview[];
}

/** Per channel of an account: messages sent and received and deliveries failed, hour by hour over the last day. */
export class OverviewService {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async overview(accountId: number): Promise<Overview> {
    const now = this.deps.clock.now();
    const since = now - (now % HOUR_MS) - (OVERVIEW_HOURS - 1) * HOUR_MS;
    const until = now + 1;
    const window = { since, until, firstId: firstIdAt(since - ID_MARGIN_MS) };
    const repo = this.deps.store.overview;
    const [channels, messages, failed] = await Promise.all([
      repo.channels(accountId),
      repo.messageCounts(accountId, window),
      repo.failedDeliveryCounts(accountId, window),
    ]);

    const byChannel = new Map<number, ChannelOverview>();
    for (const c of channels) {
      const hourly = Array.from({ length: OVERVIEW_HOURS }, (_, i) => ({ hour: isoTime(since + i * HOUR_MS), sent: 0, received: 0, deliveries_failed: 0 }));
      byChannel.set(c.id, { id: String(c.id), name: c.name, type: c.type, mode: c.mode, sent: 0, received: 0, deliveries_failed: 0, hourly });
    }
    const bucket = (channelId: number, hour: number): [ChannelOverview, HourCounts] | undefined => {
      const channel = byChannel.get(channelId);
      const counts = channel?.hourly[Math.floor((hour - since) / HOUR_MS)];
      return channel && counts ? [channel, counts] : undefined;
    };
    for (const row of messages) {
      const found = bucket(row.channel_id, row.hour);
      if (!found || (row.direction !== 'sent' && row.direction !== 'received')) continue;
      const [channel, counts] = found;
      channel[row.direction] += row.n;
      counts[row.direction] += row.n;
    }
    for (const row of failed) {
      const found = bucket(row.channel_id, row.hour);
      if (!found) continue;
      found[0].deliveries_failed += row.n;
      found[1].deliveries_failed += row.n;
    }
    return { since: isoTime(since), until: isoTime(now), channels: [...byChannel.values()] };
  }
}
