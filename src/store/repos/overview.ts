import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** One hour in ms: buckets start on the hour (UTC), as `t - t % HOUR_MS`. */
export const HOUR_MS = 3_600_000;

export interface OverviewChannelRow {
  id: number;
  name: string;
  type: string;
  mode: string;
}

/** Messages of one channel, one direction and one hour. */
export interface MessageCountRow {
  channel_id: number;
  direction: string;
  hour: number;
  n: number;
}

/** Webhook deliveries of one channel that ended failed in one hour. */
export interface FailedCountRow {
  channel_id: number;
  hour: number;
  n: number;
}

export interface OverviewWindow {
  /** Inclusive, ms since the epoch (the start of an hour). */
  since: number;
  /** Exclusive. */
  until: number;
  /** No message made at or after `since` has a smaller id (ids grow with their creation time). */
  firstId: number;
}

/**
 * Counts for the administration app's overview, one dialect-neutral statement each. The hour is
 * integer arithmetic on the stored ms (`%` on integers in both dialects); the divisor is a
 * literal, so the select and group-by expressions are the same text on PostgreSQL.
 */
export class OverviewRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async channels(accountId: number): Promise<OverviewChannelRow[]> {
    return this.db.selectFrom('channels').select(['id', 'name', 'type', 'mode']).where('account_id', '=', accountId).orderBy('id').execute();
  }

  /**
   * The account's messages per channel, direction and hour. Messages have no index by account or
   * time (each index costs a write per message); ids grow with time, so `id >= firstId` reads
   * only the window's stretch of the primary key, and `created_at` then bounds it exactly.
   */
  async messageCounts(accountId: number, window: OverviewWindow): Promise<MessageCountRow[]> {
    const rows = await this.messageCountsQuery(accountId, window).execute();
    return rows.map((r) => ({ channel_id: Number(r.channel_id), direction: r.direction, hour: Number(r.hour), n: Number(r.n) }));
  }

  /** The statement of `messageCounts` (its plan is tested). */
  messageCountsQuery(accountId: number, window: OverviewWindow) {
    const hour = sql<number>`created_at - created_at % ${sql.lit(HOUR_MS)}`;
    return (
      this.db
        .selectFrom('messages')
        .select(['channel_id', 'direction', hour.as('hour'), (eb) => eb.fn.countAll<number>().as('n')])
        .where('id', '>=', window.firstId)
        .where('account_id', '=', accountId)
        .where('created_at', '>=', window.since)
        .where('created_at', '<', window.until)
        // The hour first: grouping by (channel_id, direction) first lets SQLite pick messages_external
        // for its order, a scan of every message, over the key's range.
        .groupBy([hour, 'channel_id', 'direction'])
    );
  }

  /**
   * Deliveries now `failed`, by the hour they failed in (their last change). Read per channel of
   * the account through `deliveries_channel_status` (channel, status, id).
   */
  async failedDeliveryCounts(accountId: number, window: OverviewWindow): Promise<FailedCountRow[]> {
    const hour = sql<number>`updated_at - updated_at % ${sql.lit(HOUR_MS)}`;
    const rows = await this.db
      .selectFrom('deliveries')
      .select(['channel_id', hour.as('hour'), (eb) => eb.fn.countAll<number>().as('n')])
      .where('channel_id', 'in', this.db.selectFrom('channels').select('id').where('account_id', '=', accountId))
      .where('status', '=', 'failed')
      .where('account_id', '=', accountId)
      .where('updated_at', '>=', window.since)
      .where('updated_at', '<', window.until)
      .groupBy(['channel_id', hour])
      .execute();
    return rows.map((r) => ({ channel_id: Number(r.channel_id), hour: Number(r.hour), n: Number(r.n) }));
  }
}
