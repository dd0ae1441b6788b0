import type { Kysely } from 'kysely';
import type { Database, MessagesTable } from '../schema.js';

export type MessageRow = MessagesTable;

/** A message with what its shape shows of its channel and contact. */
export interface MessageWithRefs extends MessageRow {
  channel_type: string;
  contact_phone_number: string | null;
  contact_user_ref: string | null;
  contact_email: string | null;
}

/** A queued message with what its send needs of its contact (the send worker). */
export interface SendingMessage {
  id: number;
  channel_id: number;
  contact_id: number;
  status: string;
  content: string;
  metadata: string | null;
  created_at: number;
  contact_external_id: string | null;
  phone_number: string | null;
  user_ref: string | null;
  email: string | null;
  name: string | null;
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
      .select([
        'channels.type as channel_type',
        'contacts.phone_number as contact_phone_number',
        'contacts.user_ref as contact_user_ref',
        'contacts.email as contact_email',
      ]);
  }

  async find(accountId: number, id: number): Promise<MessageWithRefs | undefined> {
    return this.withRefs().where('messages.account_id', '=', accountId).where('messages.id', '=', id).executeTakeFirst();
  }

  async findByIdempotencyKey(accountId: number, key: string): Promise<MessageWithRefs | undefined> {
    return this.withRefs().where('messages.account_id', '=', accountId).where('messages.idempotency_key', '=', key).executeTakeFirst();
  }

  /**
   * One contact's conversation, newest first. The page's ids and the count come from the
   * (contact_id, id) index alone: a contact belongs to one channel of one account, so its
   * messages need no other filter there. (With the channel and account in the same query,
   * PostgreSQL walked the primary key backwards instead, through every newer message of the
   * channel: 350 ms for a contact whose messages were older than a million others.)
   */
  async listForContact(
    accountId: number,
    channelId: number,
    contactId: number,
    limit: number,
    offset: number,
  ): Promise<{ rows: MessageWithRefs[]; total: number }> {
    const page = this.db.selectFrom('messages').select('id').where('contact_id', '=', contactId).orderBy('id', 'desc').limit(limit).offset(offset);
    const [rows, total] = await Promise.all([
      this.withRefs()
        .where('messages.account_id', '=', accountId)
        .where('messages.channel_id', '=', channelId)
        .where('messages.id', 'in', page)
        .orderBy('messages.id', 'desc')
        .execute(),
      this.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
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

  /**
   * Replies to a shared number: of the contacts with this phone number on the given channels, the
   * one the latest message the platform took (`sent`) went to. By the (channel, phone number) and
   * (contact, id) indexes; undefined when none of them was sent to.
   */
  async lastSentToPhone(
    accountId: number,
    channelIds: readonly number[],
    phoneNumber: string,
  ): Promise<{ channel_id: number; contact_id: number } | undefined> {
    if (channelIds.length === 0) return undefined;
    const row = await this.db
      .selectFrom('contacts')
      .innerJoin('messages', 'messages.contact_id', 'contacts.id')
      .select(['contacts.channel_id', 'contacts.id as contact_id'])
      .where('contacts.account_id', '=', accountId)
      .where('contacts.channel_id', 'in', channelIds)
      .where('contacts.phone_number', '=', phoneNumber)
      .where('messages.direction', '=', 'sent')
      .where('messages.status', '=', 'sent')
      .orderBy('messages.id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { channel_id: Number(row.channel_id), contact_id: Number(row.contact_id) } : undefined;
  }

  /** The channel among these that already stored the platform's message (a repeated callback). */
  async receivedOn(accountId: number, channelIds: readonly number[], externalId: string): Promise<number | undefined> {
    if (channelIds.length === 0) return undefined;
    const row = await this.db
      .selectFrom('messages')
      .select('channel_id')
      .where('account_id', '=', accountId)
      .where('channel_id', 'in', channelIds)
      .where('direction', '=', 'received')
      .where('external_id', '=', externalId)
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.channel_id) : undefined;
  }

  /** The message a send job names, with its contact (one read): undefined when it or its contact is gone. */
  async forSend(accountId: number, id: number): Promise<SendingMessage | undefined> {
    const [found] = await this.forSendMany([{ accountId, id }]);
    return found;
  }

  /**
   * The messages of many send jobs with their contacts, in one read (the jobs a claim starts
   * together): in the order asked, undefined where a message or its contact is gone.
   */
  async forSendMany(keys: readonly { accountId: number; id: number }[]): Promise<(SendingMessage | undefined)[]> {
    if (keys.length === 0) return [];
    const rows = await this.db
      .selectFrom('messages')
      .innerJoin('contacts', 'contacts.id', 'messages.contact_id')
      .select([
        'messages.id',
        'messages.account_id',
        'messages.channel_id',
        'messages.contact_id',
        'messages.status',
        'messages.content',
        'messages.metadata',
        'messages.created_at',
        'contacts.external_id as contact_external_id',
        'contacts.phone_number',
        'contacts.user_ref',
        'contacts.email',
        'contacts.name',
      ])
      .where('messages.account_id', 'in', [...new Set(keys.map((k) => k.accountId))])
      .where(
        'messages.id',
        'in',
        keys.map((k) => k.id),
      )
      .where('messages.direction', '=', 'sent')
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return keys.map((key) => {
      const row = byId.get(key.id);
      if (!row || row.account_id !== key.accountId) return undefined;
      const { account_id: _account, ...message } = row;
      return message;
    });
  }

  /** A queued message the platform took: `sent`, with the platform's id. False when it was not queued (any more). */
  async markSent(accountId: number, id: number, externalId: string | null): Promise<boolean> {
    const result = await this.db
      .updateTable('messages')
      .set({ status: 'sent', external_id: externalId })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * A message that will not reach the contact: `failed` with its reason (JSON `{code, message}`).
   * From `queued` (the send failed for good), or from `sent` and not delivered (the platform
   * reported the failure). False when it was in neither state: a failure is recorded once.
   */
  async markFailed(accountId: number, id: number, error: string, from: 'queued' | 'sent'): Promise<boolean> {
    let query = this.db
      .updateTable('messages')
      .set({ status: 'failed', error })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('status', '=', from);
    if (from === 'sent') query = query.where('delivered_at', 'is', null);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * A platform reported the message delivered: its `delivered` time, once. A report that comes
   * before the send's result was recorded (still `queued`) makes it `sent` as well, with the
   * platform's id; the send job's own `sent` mark then changes nothing.
   */
  async markReportedDelivered(accountId: number, id: number, at: number, externalId: string | null = null): Promise<boolean> {
    const result = await this.db
      .updateTable('messages')
      .set((eb) => ({ delivered_at: at, status: 'sent', external_id: eb.fn.coalesce('external_id', eb.val(externalId)) }))
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('status', 'in', ['sent', 'queued'])
      .where('delivered_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
