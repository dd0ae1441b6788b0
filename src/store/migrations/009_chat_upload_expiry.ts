import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Web chat uploads that no message names are removed after a while: such a file carries the
 * time it may be removed (`expires_at`), cleared when the visitor's message names it. Other files
 * (attachments, profile pictures) have none. The sweep reads the partial index, which holds only
 * uploads still waiting for a message; the channel index serves the storage quota's sum.
 */
export const chatUploadExpiry: Migration = {
  name: '009_chat_upload_expiry',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('files').addColumn('expires_at', 'bigint').execute();
    await db.schema.createIndex('files_expires').on('files').column('expires_at').where(sql.ref('expires_at'), 'is not', null).execute();
    await db.schema.createIndex('files_channel').on('files').column('channel_id').execute();
  },
};
