import type { Kysely, Updateable } from 'kysely';
import type { ContactsTable, Database } from '../schema.js';

export type ContactRow = ContactsTable;
/** Columns a contact can be found by within its channel (each unique per channel). */
export type ContactKey = 'id' | 'external_id' | 'phone_number' | 'email' | 'user_ref';

/** Every method takes the account id: a forgotten tenant check cannot compile. */
export class ContactsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: ContactRow): Promise<void> {
    await this.db.insertInto('contacts').values(row).execute();
  }

  async find(accountId: number, channelId: number, id: number): Promise<ContactRow | undefined> {
    return this.db
      .selectFrom('contacts')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('channel_id', '=', channelId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async findBy(accountId: number, channelId: number, key: ContactKey, value: string | number): Promise<ContactRow | undefined> {
    return this.db
      .selectFrom('contacts')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('channel_id', '=', channelId)
      .where(key, '=', value)
      .executeTakeFirst();
  }

  /** Newest first. */
  async list(accountId: number, channelId: number, limit: number, offset: number): Promise<{ rows: ContactRow[]; total: number }> {
    const scope = this.db.selectFrom('contacts').where('account_id', '=', accountId).where('channel_id', '=', channelId);
    const [rows, total] = await Promise.all([
      scope.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      scope.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  async update(accountId: number, channelId: number, id: number, changes: Updateable<ContactsTable>): Promise<void> {
    await this.db.updateTable('contacts').set(changes).where('account_id', '=', accountId).where('channel_id', '=', channelId).where('id', '=', id).execute();
  }

  /**
   * Deletes the contact with its messages, their events, its other events (deliveries go with
   * their events) and file rows. Two statements: call it inside a transaction.
   */
  async delete(accountId: number, channelId: number, id: number): Promise<boolean> {
    // Events about a message name the message only; the rest cascades from the contact row.
    await this.db
      .deleteFrom('events')
      .where('message_id', 'in', (eb) =>
        eb.selectFrom('messages').select('id').where('account_id', '=', accountId).where('channel_id', '=', channelId).where('contact_id', '=', id),
      )
      .execute();
    const result = await this.db
      .deleteFrom('contacts')
      .where('account_id', '=', accountId)
      .where('channel_id', '=', channelId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
