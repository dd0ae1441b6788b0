import type { Kysely } from 'kysely';
import type { Database, FilesTable } from '../schema.js';

export type FileRow = FilesTable;

/** Stored files (attachments, profile pictures): the rows; the bytes live in the file store. */
export class FilesRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: FileRow): Promise<void> {
    await this.db.insertInto('files').values(row).execute();
  }

  /** Served without a token: the unguessable id is the capability. */
  async getPublic(id: string): Promise<FileRow | undefined> {
    return this.db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Where a contact's file bytes are, so they can be removed with the contact. */
  async storageKeysForContact(accountId: number, contactId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('files').select('storage_key').where('account_id', '=', accountId).where('contact_id', '=', contactId).execute();
    return rows.map((r) => r.storage_key);
  }

  async storageKeysForChannel(accountId: number, channelId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('files').select('storage_key').where('account_id', '=', accountId).where('channel_id', '=', channelId).execute();
    return rows.map((r) => r.storage_key);
  }
}
