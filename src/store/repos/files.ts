import { sql, type Kysely } from 'kysely';
import type { Database, FilesTable } from '../schema.js';

export type FileRow = FilesTable;

/** Stored files (attachments, profile pictures): the rows; the bytes live in the file store. */
export class FilesRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: FileRow): Promise<void> {
    await this.db.insertInto('files').values(row).execute();
  }

  /** Served without a token: the unguessable id is the capability. */
  async findPublic(id: string): Promise<FileRow | undefined> {
    return this.db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Where a contact's file bytes are, so they can be removed with the contact. */
  async storageKeysForContact(accountId: number, contactId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('files').select('storage_key').where('account_id', '=', accountId).where('contact_id', '=', contactId).execute();
    return rows.map((r) => r.storage_key);
  }

  async storageKeysForAccount(accountId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('files').select('storage_key').where('account_id', '=', accountId).execute();
    return rows.map((r) => r.storage_key);
  }

  async storageKeysForChannel(accountId: number, channelId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('files').select('storage_key').where('account_id', '=', accountId).where('channel_id', '=', channelId).execute();
    return rows.map((r) => r.storage_key);
  }

  /** Bytes of the files a channel keeps (the web chat's storage quota). */
  async bytesOfChannel(channelId: number): Promise<number> {
    const row = await this.db
      .selectFrom('files')
      .select(sql<string | number | null>`sum(size)`.as('n'))
      .where('channel_id', '=', channelId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** A contact's upload is named by one of its messages: it is kept from now on. */
  async keep(accountId: number, contactId: number, id: string): Promise<void> {
    await this.db
      .updateTable('files')
      .set({ expires_at: null })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('contact_id', '=', contactId)
      .where('expires_at', 'is not', null)
      .execute();
  }

  /**
   * Deletes up to `limit` rows whose time ran out and answers where their bytes are. Each row is
   * deleted by exactly one caller, so sweeps of several instances at once share the work.
   */
  async deleteExpired(now: number, limit: number): Promise<string[]> {
    const due = this.db.selectFrom('files').select('id').where('expires_at', 'is not', null).where('expires_at', '<=', now).orderBy('expires_at').limit(limit);
    const rows = await this.db.deleteFrom('files').where('id', 'in', due).where('expires_at', '<=', now).returning('storage_key').execute();
    return rows.map((r) => r.storage_key);
  }
}
