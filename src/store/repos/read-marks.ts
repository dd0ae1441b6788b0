import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * Marks the contact's messages of one direction sent up to `upTo` as read, for the web chat and
 * platform read receipts alike. A read message was delivered too: answers how many were read and
 * the ids that were delivered only now, oldest first. A failed message never reached the other
 * side, so it is neither delivered nor read.
 */
export async function markMessagesRead(
  db: Kysely<Database>,
  accountId: number,
  contactId: number,
  direction: string,
  upTo: number,
  at: number,
): Promise<{ read: number; newlyDelivered: number[] }> {
  const scope = () =>
    db
      .updateTable('messages')
      .where('account_id', '=', accountId)
      .where('contact_id', '=', contactId)
      .where('direction', '=', direction)
      .where('status', '!=', 'failed')
      .where('sent_at', '<=', upTo)
      .where('read_at', 'is', null);
  const delivered = await scope().set({ delivered_at: at }).where('delivered_at', 'is', null).returning('id').execute();
  const read = await scope().set({ read_at: at }).executeTakeFirst();
  return { read: Number(read.numUpdatedRows), newlyDelivered: delivered.map((r) => r.id).sort((a, b) => a - b) };
}
