import { sql, SqliteAdapter, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * PostgreSQL: the activity trigger (018, 019) locks the contacts it updates `for no key update`
 * instead of `for update`. Every message's foreign-key check has already taken a key-share lock
 * on its contact, and `for update` conflicts with key-share: two statements that wrote messages
 * to the same contact each waited for the other's key-share lock, a deadlock that PostgreSQL
 * broke after `deadlock_timeout` (1 s) by failing one of them. Measured with three connections
 * writing batches of 48 messages to 100 contacts, it happened within seconds. A `no key update`
 * lock (what the update takes anyway: it changes no key) does not conflict with key-share, and
 * two of them still wait for each other in id order, so the triggers cannot deadlock. SQLite,
 * one writer at a time, has nothing to change.
 */
export const contactActivityLock: Migration = {
  name: '021_contact_activity_lock',
  async up(db: Kysely<unknown>): Promise<void> {
    if (db.getExecutor().adapter instanceof SqliteAdapter) return;
    await sql`create or replace function parley_contact_activity() returns trigger language plpgsql as $$
      begin
        update contacts c set last_activity_at = greatest(c.last_activity_at, s.at)
        from (
          select c2.id, m.at from contacts c2
          join (select contact_id, max(created_at) as at from new_messages group by contact_id) m on m.contact_id = c2.id
          where c2.last_activity_at <= m.at - 1000
          order by c2.id
          for no key update of c2
        ) s
        where c.id = s.id;
        return null;
      end $$`.execute(db);
  },
};
