import type { Insertable, Kysely } from 'kysely';
import type { Database, DeliveriesTable, EventsTable } from '../schema.js';

export type EventRow = EventsTable;
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
