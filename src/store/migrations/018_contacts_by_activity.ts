import { sql, SqliteAdapter, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Contacts by last activity (List Contacts `order=last_activity`, beyond the specification):
 * each contact keeps the time its newest message was stored, 0 while it has none, indexed per
 * channel so a page of the most recently active contacts reads a few index entries however many
 * contacts the channel has. A trigger on messages keeps it, so no writer has to know: on
 * PostgreSQL one per statement (a batch of units is one insert) that locks the contacts in id
 * order, so two batches naming the same contacts wait for each other instead of deadlocking; on
 * SQLite, with its one writer, one per row. Existing contacts are filled from their messages.
 */
export const contactsByActivity: Migration = {
  name: '018_contacts_by_activity',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('contacts')
      .addColumn('last_activity_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`update contacts set last_activity_at = coalesce((select max(m.created_at) from messages m where m.contact_id = contacts.id), 0)`.execute(db);
    await db.schema.createIndex('contacts_channel_activity').on('contacts').columns(['channel_id', 'last_activity_at', 'id']).execute();
    if (db.getExecutor().adapter instanceof SqliteAdapter) {
      await sql`create trigger messages_contact_activity after insert on messages for each row
        begin
          update contacts set last_activity_at = new.created_at where id = new.contact_id and last_activity_at < new.created_at;
        end`.execute(db);
      return;
    }
    await sql`create function parley_contact_activity() returns trigger language plpgsql as $$
      begin
        update contacts c set last_activity_at = greatest(c.last_activity_at, s.at)
        from (
          select c2.id, m.at from contacts c2
          join (select contact_id, max(created_at) as at from new_messages group by contact_id) m on m.contact_id = c2.id
          where c2.last_activity_at < m.at
          order by c2.id
          for update of c2
        ) s
        where c.id = s.id;
        return null;
      end $$`.execute(db);
    await sql`create trigger messages_contact_activity after insert on messages
      referencing new table as new_messages for each statement execute function parley_contact_activity()`.execute(db);
  },
};
