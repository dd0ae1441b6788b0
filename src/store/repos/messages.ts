import type { Kysely } from 'kysely';
import type { Database, MessagesTable } from '../schema.js';

export type MessageRow = MessagesTable;

/** A message with what its shape shows of its channel and contact. */
export interface MessageWithRefs extends MessageRow {
  channel_type: string;
  contact_phone_number: string | null;
  contact_user_ref: string | null;
}

/** Every method takes the account id: a forgotten tenant check cannot compile. */
export class MessagesRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: MessageRow): Promise<void> {
    await this.db.insertInto('messages').values(row).execute();
  }

  private withRefs() {
    return this.db
      .selectFrom('messages')
      .innerJoin('contacts', 'contacts.id', 'messages.contact_id')
      .innerJoin('channels', 'channels.id', 'messages.channel_id')
      .selectAll('messages')
      .select(['channels.type as channel_type', 'contacts.phone_number as contact_phone_number', 'contacts.user_ref as contact_user_ref']);
  }

  async get(accountId: number, id: number): Promise<MessageWithRefs | undefined> {
    return this.withRefs().where('messages.account_id', '=', accountId).where('messages.id', '=', id).executeTakeFirst();
  }

  async findByIdempotencyKey(accountId: number, key: string): Promise<MessageWithRefs | undefined> {
    return this.withRefs().where('messages.account_id', '=', accountId).where('messages.idempotency_key', '=', key).executeTakeFirst();
  }

  /** One contact's conversation, newest first. */
  async listForContact(
    accountId: number,
    channelId: number,
    contactId: number,
    limit: number,
    offset: number,
  ): Promise<{ rows: MessageWithRefs[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.withRefs()
        .where('messages.account_id', '=', accountId)
        .where('messages.channel_id', '=', channelId)
        .where('messages.contact_id', '=', contactId)
        .orderBy('messages.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      this.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('channel_id', '=', channelId)
        .where('contact_id', '=', contactId)
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** Messages a channel has sent or queued (failed ones do not count): the `shared` mode allowance. */
  async countSent(accountId: number, channelId: number): Promise<number> {
    const row = await this.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('channel_id', '=', channelId)
      .where('direction', '=', 'sent')
      .where('status', '!=', 'failed')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
