import type { Kysely } from 'kysely';
import type { Database, FailoverStepsTable, FailoversTable } from '../schema.js';
import { unitRows, type WriteUnit } from '../write-unit.js';

/** The job kind that moves a failover chain (domain/failover/job.ts names it too). */
const FAILOVER_JOB_KIND = 'failover';

/** A started step with what its view shows of its message. */
export interface FailoverStepRow extends FailoverStepsTable {
  channel_type: string;
  status: string;
  delivered_at: number | null;
  read_at: number | null;
  error: string | null;
}

/** A step's message and the chain it belongs to. */
export interface FailoverLink {
  message_id: number;
  failover_id: number;
  step: number;
}

/**
 * Failover chains (migration 020). Every change of a chain is conditional on what the caller
 * read (the current step, an open step), so of two workers or a worker and a late report only
 * one changes it.
 */
export class FailoversRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async find(accountId: number, id: number): Promise<FailoversTable | undefined> {
    return this.db.selectFrom('failovers').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  }

  /** The started steps of a chain, in order, with their messages' state. */
  async steps(failoverId: number): Promise<FailoverStepRow[]> {
    return this.db
      .selectFrom('failover_steps')
      .innerJoin('messages', 'messages.id', 'failover_steps.message_id')
      .innerJoin('channels', 'channels.id', 'failover_steps.channel_id')
      .selectAll('failover_steps')
      .select(['channels.type as channel_type', 'messages.status', 'messages.delivered_at', 'messages.read_at', 'messages.error'])
      .where('failover_steps.failover_id', '=', failoverId)
      .orderBy('failover_steps.step')
      .execute();
  }

  /** The chains the messages are steps of (none for a message sent without fallbacks). */
  async linksOf(messageIds: readonly number[]): Promise<FailoverLink[]> {
    if (messageIds.length === 0) return [];
    return this.db.selectFrom('failover_steps').select(['message_id', 'failover_id', 'step']).where('message_id', 'in', messageIds).execute();
  }

  /** The chains with an open step to the contact (a read receipt names the contact, not the message). */
  async openOfContact(contactId: number): Promise<number[]> {
    const rows = await this.db.selectFrom('failover_steps').select('failover_id').where('contact_id', '=', contactId).where('ended_at', 'is', null).execute();
    return rows.map((r) => r.failover_id);
  }

  /**
   * The chains' jobs become due now, to look at a report their step got. A job running meanwhile
   * gets a run_at later than its claim (updated_at): its completion keeps that when it is earlier
   * than the job's own wait (job-queue COMPLETE), so the report is looked at at once, not at the
   * next poll.
   */
  async poke(failoverIds: readonly number[], now: number): Promise<void> {
    if (failoverIds.length === 0) return;
    await this.db
      .updateTable('jobs')
      .set((eb) => ({
        run_at: eb
          .case()
          .when(eb.and([eb('status', '=', 'running'), eb('updated_at', '>=', now)]))
          .then(eb('updated_at', '+', 1))
          .else(now)
          .end(),
      }))
      .where('kind', '=', FAILOVER_JOB_KIND)
      .where('message_id', 'in', failoverIds)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'pending'), eb('run_at', '>', now)]),
          eb.and([eb('status', '=', 'running'), eb('run_at', '<=', eb.ref('updated_at'))]),
        ]),
      )
      .execute();
  }

  /** Moves the chain from step `from` to `to` (compare-and-set): false when another did first or it ended. */
  async advance(id: number, from: number, to: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('failovers')
      .set({ step: to, updated_at: now })
      .where('id', '=', id)
      .where('step', '=', from)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Ends the chain at step `at`: no further step starts. */
  async end(id: number, at: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('failovers')
      .set({ state: 'ended', updated_at: now })
      .where('id', '=', id)
      .where('step', '=', at)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Ends an open step with its outcome; false when it had ended already. */
  async endStep(messageId: number, outcome: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('failover_steps')
      .set({ ended_at: now, outcome })
      .where('message_id', '=', messageId)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** A unit's rows inside the caller's transaction (a step's message starts with the chain's move). */
  async insertUnit(unit: WriteUnit): Promise<void> {
    const db = this.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    for (const { table, rows, ignoreConflicts } of unitRows(unit)) {
      const insert = db.insertInto(table).values(rows);
      await (ignoreConflicts ? insert.onConflict((c) => c.doNothing()) : insert).execute();
    }
  }
}
