import type { Store } from '../../store/store.js';
import type { DeliveriesRepo, DeliveryAttemptRow, DeliveryListRow } from '../../store/repos/deliveries.js';
import type { Clock } from '../../lib/clock.js';
import { isoTime } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import type { DeliveryView } from './schemas.js';

export interface WebhookDeliveryServiceDeps {
  store: Store;
  clock: Clock;
  /** Tells the local webhook worker that something is due now. */
  wake: () => void;
}

export interface DeliveryQuery {
  status?: string | undefined;
  max: number;
  offset: number;
}

function view(row: DeliveryListRow, attempts: readonly DeliveryAttemptRow[]): DeliveryView {
  return {
    id: String(row.id),
    status: row.status as DeliveryView['status'],
    event: { id: String(row.event_id), type: row.event_type, body: JSON.parse(row.event_body) as DeliveryView['event']['body'] },
    created: isoTime(row.created_at),
    updated: isoTime(row.updated_at),
    next_attempt: row.status === 'pending' ? isoTime(row.next_attempt_at) : null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    attempts: attempts.map((a) => ({
      id: String(a.id),
      attempted: isoTime(a.attempted_at),
      url: a.url,
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      response_excerpt: a.response_excerpt,
      error: a.error,
    })),
  };
}

/** The deliveries of a channel's webhook, with every try, and sending one again on request. */
export class WebhookDeliveryService {
  constructor(private readonly deps: WebhookDeliveryServiceDeps) {}

  private async channel(accountId: number, channelId: number) {
    const channel = await this.deps.store.channels.find(accountId, channelId);
    if (!channel) throw ApiError.notFound('Channel');
    return channel;
  }

  /** `repo` reads in the snapshot the rows came from, so each row shows exactly the tries it counts. */
  private async withAttempts(repo: DeliveriesRepo, rows: DeliveryListRow[]): Promise<DeliveryView[]> {
    const attempts = await repo.attemptsOf(rows.map((r) => r.id));
    const byDelivery = new Map<number, DeliveryAttemptRow[]>();
    for (const a of attempts) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
    return rows.map((r) => view(r, byDelivery.get(r.id) ?? []));
  }

  /** Newest first. */
  async list(accountId: number, channelId: number, query: DeliveryQuery): Promise<{ deliveries: DeliveryView[]; total: number }> {
    await this.channel(accountId, channelId);
    return this.deps.store.deliveries.snapshot(async (repo) => {
      const { rows, total } = await repo.list(accountId, channelId, query.status, query.max, query.offset);
      return { deliveries: await this.withAttempts(repo, rows), total };
    });
  }

  /**
   * Sends a delivery again at once, whatever its state, to the channel's current webhook, as a
   * new cycle of tries (the retry schedule starts over). The event id stays the same.
   */
  async redeliver(accountId: number, channelId: number, deliveryId: number): Promise<DeliveryView> {
    const channel = await this.channel(accountId, channelId);
    if (!(await this.deps.store.deliveries.find(accountId, channelId, deliveryId))) throw ApiError.notFound('Delivery');
    if (channel.webhook_id === null) throw ApiError.of('validation', 'The channel has no webhook to deliver to.');
    await this.deps.store.deliveries.redeliver(accountId, channelId, deliveryId, channel.webhook_id, this.deps.clock.now());
    this.deps.wake();
    return this.deps.store.deliveries.snapshot(async (repo) => {
      const row = await repo.find(accountId, channelId, deliveryId);
      if (!row) throw ApiError.notFound('Delivery');
      const [one] = await this.withAttempts(repo, [row]);
      return one as DeliveryView;
    });
  }
}
