import { sql, type Kysely, type Updateable } from 'kysely';
import type { ContactsTable, Database } from '../schema.js';

export type ContactRow = ContactsTable;
/** Columns a contact can be found by within its channel (each unique per channel). */
export type ContactKey = 'id' | 'external_id' | 'phone_number' | 'email' | 'user_ref';

/** The order of List Contacts: `newest` is the specification's (by id), `last_activity` by the newest message. */
export type ContactOrder = 'newest' | 'last_activity';

export interface ContactPage {
  limit: number;
  offset: number;
  order: ContactOrder;
  /** Part of a name, phone number, e-mail address or user reference, matched in any case, or the contact's id. */
  search?: string;
}

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

  /** The channel's contacts whose `key` is one of `values` (in no particular order). */
  async findManyBy(accountId: number, channelId: number, key: ContactKey, values: ReadonlyArray<string | number>): Promise<ContactRow[]> {
    if (values.length === 0) return [];
    return this.db
      .selectFrom('contacts')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('channel_id', '=', channelId)
      .where(key, 'in', [...values])
      .execute();
  }

  /**
   * A page of the channel's contacts: newest first, or (beyond the specification) most recently
   * active first, and only those whose name, phone number or address contains `search` (any case)
   * or whose id it is.
   * Both orders read their channel's index; ties fall to the newer contact.
   */
  async list(accountId: number, channelId: number, page: ContactPage): Promise<{ rows: ContactRow[]; total: number }> {
    let scope = this.db.selectFrom('contacts').where('account_id', '=', accountId).where('channel_id', '=', channelId);
    const pattern = page.search ? `%${page.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
    if (pattern !== null) {
      // A contact without name or address is named by its id: that id finds it too.
      const id = /^[1-9][0-9]{0,15}$/.test(page.search ?? '') ? Number(page.search) : null;
      scope = scope.where((eb) =>
        eb.or([
          ...(['name', 'phone_number', 'email', 'user_ref'] as const).map((column) => sql<boolean>`lower(${eb.ref(column)}) like ${pattern} escape '\\'`),
          ...(id !== null ? [eb('id', '=', id)] : []),
        ]),
      );
    }
    let rows = scope.selectAll();
    rows = page.order === 'last_activity' ? rows.orderBy('last_activity_at', 'desc').orderBy('id', 'desc') : rows.orderBy('id', 'desc');
    // The count names the channel only, so it reads the channel's index alone (account_id is not in
    // it: filtering by it read all the channel's rows); the channel is the account's or none.
    const ofAccount = this.db.selectFrom('channels').select('id').where('id', '=', channelId).where('account_id', '=', accountId);
    const counted = page.search ? scope : this.db.selectFrom('contacts').where('channel_id', '=', ofAccount);
    const [found, total] = await Promise.all([
      rows.limit(page.limit).offset(page.offset).execute(),
      counted.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: found, total: Number(total.n) };
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
