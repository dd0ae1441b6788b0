import type { Insertable, Kysely } from 'kysely';
import type { Database, DeliveriesTable, EventsTable } from '../schema.js';

/** `inbound_key` is set by inbound events only, so inserts may leave it out. */
export type EventRow = Insertable<EventsTable>;
/** Lease columns start empty, so inserts may leave them out. */
export type DeliveryRow = Insertable<DeliveriesTable>;

/** The transactional outbox: events and their per-webhook deliveries. */
export class EventsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insertEvent(row: EventRow): Promise<void> {
    await this.db.insertInto('events').values(row).execute();
  }

  async insertDelivery(row: DeliveryRow): Promise<void> {
    await this.db.insertInto('deliveries').values(row).execute();
  }
}
