import type { Kysely, Migration as KyselyMigration, MigrationProvider } from 'kysely';
import { initial } from './001_initial.js';
import { deliveryQueue } from './002_delivery_queue.js';
import { chat } from './003_chat.js';
import { messagesByChannel } from './004_messages_by_channel.js';
import { eventsByMessage } from './005_events_by_message.js';
import { sqliteRowidIds } from './006_sqlite_rowid_ids.js';
import { inboundEventKeys } from './007_inbound_event_keys.js';
import { tokenUse } from './008_token_use.js';
import { chatUploadExpiry } from './009_chat_upload_expiry.js';
import { jobQueue } from './010_job_queue.js';
import { messageParts } from './011_message_parts.js';
import { adminUsers } from './012_admin_users.js';
import { nlp } from './013_nlp.js';
import { adminUserEmailPerAccount } from './014_admin_user_email_per_account.js';
import { inboundSignatureBindings } from './015_inbound_signature_bindings.js';
import { serviceMeta } from './016_service_meta.js';
import { correlationIds } from './017_correlation_ids.js';
import { contactsByActivity } from './018_contacts_by_activity.js';
import { contactActivityPerSecond } from './019_contact_activity_per_second.js';
import { failovers } from './020_failovers.js';
import { contactActivityLock } from './021_contact_activity_lock.js';
import type { Migration } from './migration.js';

export type { Migration } from './migration.js';

/** Ordered list; append new migrations, never edit a released one. */
export const MIGRATIONS: Migration[] = [
  initial,
  deliveryQueue,
  chat,
  messagesByChannel,
  eventsByMessage,
  sqliteRowidIds,
  inboundEventKeys,
  tokenUse,
  chatUploadExpiry,
  jobQueue,
  messageParts,
  adminUsers,
  nlp,
  adminUserEmailPerAccount,
  inboundSignatureBindings,
  serviceMeta,
  correlationIds,
  contactsByActivity,
  contactActivityPerSecond,
  failovers,
  contactActivityLock,
];

export const migrationProvider: MigrationProvider = {
  getMigrations(): Promise<Record<string, KyselyMigration>> {
    return Promise.resolve(Object.fromEntries(MIGRATIONS.map((m) => [m.name, { up: (db: Kysely<unknown>) => m.up(db) }])));
  },
};
