import type { Repos } from '../../store/store.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import { isoTime } from '../../lib/clock.js';
import type { EventEnvelope, EventType } from '../../schemas/events.js';

export interface OutboxChannel {
  id: string;
  accountId: number;
  webhook: { id: string } | null;
}

export interface EventInput {
  type: EventType;
  channel: OutboxChannel;
  contactId: string | number | null;
  data: Record<string, unknown>;
}

/**
 * Every event is a row first: `append` writes the event, and a delivery when the channel has a
 * webhook, inside the caller's transaction, so the change and its event commit or fail together.
 * Workers deliver the rows; `wake` tells the local workers after a commit that work is due.
 */
export class Outbox {
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async append(tx: Repos, input: EventInput): Promise<{ eventId: string; deliveryId: string | null; body: string }> {
    const now = this.clock.now();
    const envelope: EventEnvelope = { event: input.type, timestamp: isoTime(now), data: input.data };
    const body = JSON.stringify(envelope);
    const eventId = this.ids.nextNumber();
    const channelId = Number(input.channel.id);
    await tx.events.insertEvent({
      id: eventId,
      account_id: input.channel.accountId,
      channel_id: channelId,
      contact_id: input.contactId === null ? null : Number(input.contactId),
      type: input.type,
      body,
      created_at: now,
    });
    let deliveryId: number | null = null;
    if (input.channel.webhook) {
      deliveryId = this.ids.nextNumber();
      await tx.events.insertDelivery({
        id: deliveryId,
        event_id: eventId,
        account_id: input.channel.accountId,
        channel_id: channelId,
        webhook_id: Number(input.channel.webhook.id),
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        locked_until: null,
        last_status_code: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      });
    }
    return { eventId: String(eventId), deliveryId: deliveryId === null ? null : String(deliveryId), body };
  }

  onWake(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Call after the transaction that appended events has committed. */
  wake(): void {
    for (const listener of this.listeners) listener();
  }
}
