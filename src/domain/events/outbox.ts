import type { Repos } from '../../store/store.js';
import type { DeliveryRow, EventRow } from '../../store/repos/events.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import { isoTime } from '../../lib/clock.js';
import type { EventEnvelope, EventType } from '../../schemas/events.js';
import type { DomainSignals } from '../signals.js';

export interface OutboxChannel {
  id: string;
  accountId: number;
  webhook: { id: string } | null;
}

export interface EventInput {
  type: EventType;
  channel: OutboxChannel;
  contactId: string | number | null;
  /** The message the event is about, if it is about one (message_echo, message_received). */
  messageId?: number;
  data: Record<string, unknown>;
  /** The correlation id of what made the event (lib/correlation.ts), sent with its webhook deliveries. */
  correlationId?: string | null;
}

/** An event's rows: the event (null when it is not kept, see `Outbox.build`) and its delivery. */
export interface EventRows {
  event: EventRow | null;
  delivery: DeliveryRow | null;
}

/** The rows as a write unit's inserts: none, the event, or the event and its delivery. */
export function eventInserts({ event, delivery }: EventRows): { events?: EventRow[]; deliveries?: DeliveryRow[] } {
  if (!event) return {};
  return delivery ? { events: [event], deliveries: [delivery] } : { events: [event] };
}

/**
 * Every event that goes somewhere is a row first: `append` writes the event, and a delivery when
 * the channel has a webhook, inside the caller's transaction, so the change and its event commit
 * or fail together. Workers deliver the rows; `wake` signals `webhooksDue` after a commit, so the
 * webhook worker claims them.
 */
export class Outbox {
  /** Looks at each event before it is written, in its transaction (failover chains follow their steps' reports). */
  private beforeAppend: ((tx: Repos, input: EventInput) => Promise<EventInput>) | null = null;

  constructor(
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly signals: DomainSignals,
  ) {}

  /** Set once by the wiring. */
  watchAppends(hook: (tx: Repos, input: EventInput) => Promise<EventInput>): void {
    this.beforeAppend = hook;
  }

  /** Writes the event's rows (`build`): the ids of what was written, and the event's body. */
  async append(tx: Repos, given: EventInput): Promise<{ eventId: string | null; deliveryId: string | null; body: string | null }> {
    const input = this.beforeAppend ? await this.beforeAppend(tx, given) : given;
    const { event, delivery } = this.build(input);
    if (!event) return { eventId: null, deliveryId: null, body: null };
    await tx.events.insertEvent(event);
    if (delivery) await tx.events.insertDelivery(delivery);
    return { eventId: String(event.id), deliveryId: delivery ? String(delivery.id) : null, body: event.body };
  }

  /**
   * The rows `append` writes, without writing them: for callers that insert them with other rows
   * in one write unit (store.batchWrite), still in the same commit as the change they report.
   *
   * An event about a message (`messageId`) of a channel without a webhook has no row: nothing
   * would read it. The message row holds what it reports, and a webhook set later is not sent
   * earlier events. Events about no single message keep their row with or without a webhook:
   * the inbound key on it makes a repeated platform call a duplicate, and a contact's last
   * activity is read from its postbacks and opt-ins.
   */
  build(input: EventInput): EventRows {
    if (!input.channel.webhook && input.messageId !== undefined) return { event: null, delivery: null };
    const now = this.clock.now();
    const envelope: EventEnvelope = { event: input.type, timestamp: isoTime(now), data: input.data };
    const body = JSON.stringify(envelope);
    const channelId = Number(input.channel.id);
    const event: EventRow = {
      id: this.ids.nextNumber(),
      account_id: input.channel.accountId,
      channel_id: channelId,
      // An event about a message is tied to the message only: it goes with it, and the contact
      // index is not written for every message (migration 005).
      contact_id: input.messageId !== undefined || input.contactId === null ? null : Number(input.contactId),
      message_id: input.messageId ?? null,
      type: input.type,
      body,
      created_at: now,
      // Always present, so every event insert has the same columns (one prepared statement).
      correlation_id: input.correlationId ?? null,
    };
    if (!input.channel.webhook) return { event, delivery: null };
    const delivery: DeliveryRow = {
      id: this.ids.nextNumber(),
      event_id: event.id,
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
    };
    return { event, delivery };
  }

  /** Call after the transaction that appended events has committed. */
  wake(): void {
    this.signals.emit('webhooksDue');
  }
}
