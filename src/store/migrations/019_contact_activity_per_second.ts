import { sql, SqliteAdapter, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * contacts.last_activity_at (migration 018) to the second: the trigger moves it only when a
 * message is at least a second newer than the stored time. Updating it on every message made
 * a send cost a contact update: on PostgreSQL a new row version with an entry in each of the
 * contacts' indexes, and a row lock that made concurrent batches to the same contacts wait for
 * each other's commit (measured: about half of PostgreSQL's work per send); on SQLite a row
 * update per message. A contact messaging several times a second now costs it once a second, and
 * the order of List Contacts `order=last_activity` is right to within a second.
 */
export const contactActivityPerSecond: Migration = {
  name: '019_contact_activity_per_second',
  async up(db: Kysely<unknown>): Promise<void> {
    if (db.getExecutor().adapter instanceof SqliteAdapter) {
      await sql`drop trigger messages_contact_activity`.execute(db);
      await sql`create trigger messages_contact_activity after insert on messages for each row
        begin
          update contacts set last_activity_at = new.created_at where id = new.contact_id and last_activity_at <= new.created_at - 1000;
        end`.execute(db);
      return;
    }
    // The statement-level trigger of 018 stays; only the rows it locks and updates change.
    await sql`create or replace function parley_contact_activity() returns trigger language plpgsql as $$
      begin
        update contacts c set last_activity_at = greatest(c.last_activity_at, s.at)
        from (
          select c2.id, m.at from contacts c2
          join (select contact_id, max(created_at) as at from new_messages group by contact_id) m on m.contact_id = c2.id
          where c2.last_activity_at <= m.at - 1000
          order by c2.id
          for update of c2
        ) s
        where c.id = s.id;
        return null;
      end $$`.execute(db);
  },
};
