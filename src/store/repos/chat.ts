import type { Kysely } from 'kysely';
import type { ChatSessionsTable, Database, MessagesTable } from '../schema.js';
import { markMessagesRead } from './read-marks.js';

export type ChatSessionRow = ChatSessionsTable;

/**
 * What the web chat (service_chat) needs beyond the shared repositories: sessions, the
 * conversation paged by cursor, and delivery and read state. Sessions are looked up by their
 * token's hash alone: the browser holds no account token, the unguessable session is the key.
 */
export class ChatRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insertSession(row: ChatSessionRow): Promise<void> {
    await this.db.insertInto('chat_sessions').values(row).execute();
  }

  async findSession(tokenHash: string): Promise<ChatSessionRow | undefined> {
    return this.db.selectFrom('chat_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  async touchSession(tokenHash: string, at: number): Promise<void> {
    await this.db.updateTable('chat_sessions').set({ last_seen_at: at }).where('token_hash', '=', tokenHash).execute();
  }

  /** One contact's conversation, newest first, older than `beforeId` when given; one extra row tells whether more exist. */
  async page(accountId: number, contactId: number, beforeId: number | null, limit: number): Promise<{ rows: MessagesTable[]; hasMore: boolean }> {
    let query = this.db.selectFrom('messages').selectAll().where('account_id', '=', accountId).where('contact_id', '=', contactId);
    if (beforeId !== null) query = query.where('id', '<', beforeId);
    const rows = await query
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  /** Marks one message of the contact delivered; false when it was already, or is not the contact's. */
  async markDelivered(accountId: number, contactId: number, messageId: number, direction: string, at: number): Promise<boolean> {
    const result = await this.db
      .updateTable('messages')
      .set({ delivered_at: at })
      .where('account_id', '=', accountId)
      .where('contact_id', '=', contactId)
      .where('id', '=', messageId)
      .where('direction', '=', direction)
      .where('delivered_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async messageExists(accountId: number, contactId: number, messageId: number, direction: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('messages')
      .select('id')
      .where('account_id', '=', accountId)
      .where('contact_id', '=', contactId)
      .where('id', '=', messageId)
      .where('direction', '=', direction)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** See markMessagesRead: the site's messages (`sent`) or the visitor's (`received`). */
  async markRead(accountId: number, contactId: number, direction: string, upTo: number, at: number): Promise<{ read: number; newlyDelivered: number[] }> {
    return markMessagesRead(this.db, accountId, contactId, direction, upTo, at);
  }
}
