import type { Kysely, Selectable } from 'kysely';
import type { Database, DeliveriesTable, DeliveryAttemptsTable } from '../schema.js';

export type DeliveryListRow = Selectable<DeliveriesTable> & { event_type: string; event_body: string };
export type DeliveryAttemptRow = Selectable<DeliveryAttemptsTable>;

/** A channel's webhook as the worker needs it at send time; the secret is still encrypted. */
export interface WebhookTargetRow {
  id: number;
  account_id: number;
  webhook_id: number | null;
  webhook_url: string | null;
  webhook_secret: string | null;
  webhook_ssl_verification: number;
}

/**
 * Webhook deliveries as the API shows and steers them (the worker's side is the DeliveryQueue).
 * Every tenant read takes the account id.
 */
export class DeliveriesRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Runs `work`'s reads on one snapshot. The worker records a try and the row's new state in one
   * transaction; reading the rows and their tries in two statements could fall between and show
   * a try beside the row as it was before it. Repeatable read on PostgreSQL (read committed
   * takes a snapshot per statement); a SQLite transaction holds the one connection throughout.
   */
  async snapshot<T>(work: (repo: DeliveriesRepo) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this);
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute((trx) => work(new DeliveriesRepo(trx)));
  }

  /** Newest first, optionally of one status. */
  async list(
    accountId: number,
    channelId: number,
    status: string | undefined,
    limit: number,
    offset: number,
  ): Promise<{ rows: DeliveryListRow[]; total: number }> {
    let rows = this.db
      .selectFrom('deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .selectAll('d')
      .select(['e.type as event_type', 'e.body as event_body'])
      .where('d.account_id', '=', accountId)
      .where('d.channel_id', '=', channelId);
    let count = this.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('channel_id', '=', channelId);
    if (status !== undefined) {
      rows = rows.where('d.status', '=', status);
      count = count.where('status', '=', status);
    }
    const [list, total] = await Promise.all([rows.orderBy('d.id', 'desc').limit(limit).offset(offset).execute(), count.executeTakeFirstOrThrow()]);
    return { rows: list, total: Number(total.n) };
  }

  async find(accountId: number, channelId: number, id: number): Promise<DeliveryListRow | undefined> {
    return this.db
      .selectFrom('deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .selectAll('d')
      .select(['e.type as event_type', 'e.body as event_body'])
      .where('d.account_id', '=', accountId)
      .where('d.channel_id', '=', channelId)
      .where('d.id', '=', id)
      .executeTakeFirst();
  }

  /** Tries of the given deliveries, oldest first. */
  async attemptsOf(deliveryIds: readonly number[]): Promise<DeliveryAttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    return this.db
      .selectFrom('delivery_attempts')
      .selectAll()
      .where('delivery_id', 'in', [...deliveryIds])
      .orderBy('delivery_id')
      .orderBy('id')
      .execute();
  }

  /**
   * Makes a delivery due at once as a new cycle of tries, to the channel's current webhook. A
   * lease some worker holds is cleared, so that worker's late result cannot overwrite this.
   */
  async redeliver(accountId: number, channelId: number, id: number, webhookId: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: now, locked_until: null, lease_id: null, webhook_id: webhookId, updated_at: now })
      .where('account_id', '=', accountId)
      .where('channel_id', '=', channelId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** `redeliver` for every failed delivery of the channel at once; answers how many. */
  async redeliverFailed(accountId: number, channelId: number, webhookId: number, now: number): Promise<number> {
    const result = await this.db
      .updateTable('deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: now, locked_until: null, lease_id: null, webhook_id: webhookId, updated_at: now })
      .where('account_id', '=', accountId)
      .where('channel_id', '=', channelId)
      .where('status', '=', 'failed')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** The channel's webhook was removed: its pending deliveries will not be sent. */
  async dropPending(accountId: number, channelId: number, now: number): Promise<number> {
    const result = await this.db
      .updateTable('deliveries')
      .set({ status: 'dropped', locked_until: null, lease_id: null, last_error: 'The webhook was removed.', updated_at: now })
      .where('account_id', '=', accountId)
      .where('channel_id', '=', channelId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** For the worker, which serves every account: the current webhook of each channel. */
  async webhookTargets(channelIds: readonly number[]): Promise<WebhookTargetRow[]> {
    if (channelIds.length === 0) return [];
    return this.db
      .selectFrom('channels')
      .select(['id', 'account_id', 'webhook_id', 'webhook_url', 'webhook_secret', 'webhook_ssl_verification'])
      .where('id', 'in', [...channelIds])
      .execute();
  }
}
