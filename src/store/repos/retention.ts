import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { firstIdAt } from '../../lib/ids.js';

/** Delivery states after which nothing more is sent. */
export const FINISHED_DELIVERIES = ['delivered', 'failed', 'dropped'] as const;
/** Job states after which the job never runs again. */
export const FINISHED_JOBS = ['done', 'failed', 'expired'] as const;
/** Job states of a job still to run or running. */
const LIVE_JOBS = ['pending', 'running'];

/**
 * How far past a time the id bound reaches: an id is made from a clock read that may come a
 * little after the row's `created_at`, or on another instance whose clock is ahead. The bound
 * only lets the database read the primary key's range; `created_at` decides.
 */
const ID_MARGIN_MS = 15 * 60_000;

/** A message the retention purge deleted, with what its files are found by. */
export interface PurgedMessage {
  id: number;
  account_id: number;
  contact_id: number;
  content: string;
}

/**
 * The retention purge's queries (domain/retention): each deletes at most `limit` rows past their
 * age, and never a row something still needs. Each batch is short; the caller runs the
 * multi-statement ones in a transaction. Rows are chosen again inside the delete (the states are
 * checked twice), so a row that changed since it was chosen (a redelivery) stays.
 */
export class RetentionRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Finished webhook deliveries last changed before `before`, with their attempts (by the foreign key's cascade). */
  async deliveries(before: number, limit: number): Promise<number> {
    const chosen = await this.db
      .selectFrom('deliveries')
      .select('id')
      .where('status', 'in', [...FINISHED_DELIVERIES])
      .where('updated_at', '<', before)
      .limit(limit)
      .execute();
    if (chosen.length === 0) return 0;
    // The chosen ids as a list, and the state checked again through an expression: the database
    // then finds the rows by their key, not by walking the status index over every finished row.
    const result = await this.db
      .deleteFrom('deliveries')
      .where(
        'id',
        'in',
        chosen.map((r) => r.id),
      )
      .where((eb) => eb(eb.fn.coalesce('status', sql.lit('')), 'in', [...FINISHED_DELIVERIES]))
      .where('updated_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Jobs that ended (`done`, `failed`, `expired`) before `before`. */
  async jobs(before: number, limit: number): Promise<number> {
    const chosen = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('status', 'in', [...FINISHED_JOBS])
      .where('updated_at', '<', before)
      .limit(limit)
      .execute();
    if (chosen.length === 0) return 0;
    const result = await this.db
      .deleteFrom('jobs')
      .where(
        'id',
        'in',
        chosen.map((r) => r.id),
      )
      .where((eb) => eb(eb.fn.coalesce('status', sql.lit('')), 'in', [...FINISHED_JOBS]))
      .where('updated_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Forgets the idempotency keys of messages made before `before`: the message stays, a request
   * with its key makes a new message from then on.
   */
  async idempotencyKeys(before: number, limit: number): Promise<number> {
    const chosen = this.db
      .selectFrom('messages')
      .select('id')
      // Read from the partial index of keyed messages: after the first pass it holds about one
      // age's worth of keys, and a forgotten key leaves it.
      .where('idempotency_key', 'is not', null)
      .where('created_at', '<', before)
      .limit(limit);
    const result = await this.db
      .updateTable('messages')
      .set({ idempotency_key: null, request_hash: null })
      .where('id', 'in', chosen)
      .where('created_at', '<', before)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * Events made before `before` after the event `afterId`, none of whose deliveries is still to
   * be made, oldest first; their finished deliveries and attempts go with them (cascade). Answers
   * how many were chosen and deleted, and the last id chosen, where the next batch goes on:
   * events kept are passed once per pass, not once per batch.
   */
  async events(before: number, afterId: number, limit: number): Promise<{ deleted: number; chosen: number; lastId: number | null }> {
    const chosen = await this.db
      .selectFrom('events as e')
      .select('e.id')
      .where('e.id', '>', afterId)
      .where('e.id', '<', firstIdAt(before + ID_MARGIN_MS))
      .where('e.created_at', '<', before)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id').where('d.status', '=', 'pending'))),
      )
      .orderBy('e.id')
      .limit(limit)
      .execute();
    if (chosen.length === 0) return { deleted: 0, chosen: 0, lastId: null };
    const result = await this.db
      .deleteFrom('events')
      .where(
        'id',
        'in',
        chosen.map((r) => r.id),
      )
      // Checked again: a delivery redelivered since the choice keeps its event.
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('deliveries as d').select('d.id').whereRef('d.event_id', '=', 'events.id').where('d.status', '=', 'pending'))),
      )
      .executeTakeFirst();
    return { deleted: Number(result.numDeletedRows), chosen: chosen.length, lastId: chosen[chosen.length - 1]!.id };
  }

  /**
   * Messages made before `before` after the message `afterId` (where the last batch ended, so
   * the messages kept are passed once per pass) that nothing needs any more, oldest first: not the newest of
   * its contact in its direction (the conversation list, the reply window and the quick replies
   * on screen read them), no job still to run about it, no event of it still to be delivered,
   * and no idempotency key made after `keysBefore` (a retry with the key still finds it). Their
   * events (with deliveries and attempts) and finished jobs go with them. Several statements:
   * call it inside a transaction.
   */
  async messages(before: number, keysBefore: number, afterId: number, limit: number): Promise<PurgedMessage[]> {
    const rows = await this.db
      .selectFrom('messages as m')
      .select(['m.id', 'm.account_id', 'm.contact_id', 'm.content'])
      .where('m.id', '>', afterId)
      .where('m.id', '<', firstIdAt(before + ID_MARGIN_MS))
      .where('m.created_at', '<', before)
      .where((eb) => eb.or([eb('m.idempotency_key', 'is', null), eb('m.created_at', '<', keysBefore)]))
      // A newer message of the contact in the same direction: this one is not the newest.
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('messages as n')
            .select('n.id')
            .whereRef('n.contact_id', '=', 'm.contact_id')
            .whereRef('n.direction', '=', 'm.direction')
            .whereRef('n.id', '>', 'm.id'),
        ),
      )
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('jobs as j').select('j.id').whereRef('j.message_id', '=', 'm.id').where('j.status', 'in', LIVE_JOBS))),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('events as e')
              .innerJoin('deliveries as d', 'd.event_id', 'e.id')
              .select('d.id')
              .whereRef('e.message_id', '=', 'm.id')
              .where('d.status', '=', 'pending'),
          ),
        ),
      )
      .orderBy('m.id')
      .limit(limit)
      .execute();
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    await this.db.deleteFrom('events').where('message_id', 'in', ids).execute();
    await this.db.deleteFrom('messages').where('id', 'in', ids).execute();
    return rows;
  }

  /**
   * Deletes the files of `accountId`'s contact among `ids` that no message of the contact names
   * any more (a message names a file by its URL), and answers where their bytes are, to be
   * removed after the commit.
   */
  async filesNamedOnlyBy(accountId: number, contactId: number, ids: readonly string[]): Promise<string[]> {
    const keys: string[] = [];
    for (const id of ids) {
      const named = await this.db
        .selectFrom('messages')
        .select('id')
        .where('contact_id', '=', contactId)
        .where('content', 'like', `%/files/${id}/%`)
        .limit(1)
        .executeTakeFirst();
      if (named) continue;
      const row = await this.db
        .deleteFrom('files')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('contact_id', '=', contactId)
        .returning('storage_key')
        .executeTakeFirst();
      if (row) keys.push(row.storage_key);
    }
    return keys;
  }
}
