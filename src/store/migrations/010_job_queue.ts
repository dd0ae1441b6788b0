import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The `jobs` table becomes a queue the workers share (send jobs and other background work): a
 * lease (its token, its wall-clock end and the instance number of the process that holds it, so
 * the leases of a process that ended are freed at once), the message a job is about (at most one
 * job per message and kind: enqueueing twice is harmless), a time after which a job not run ends
 * `expired`, how many attempts it may make, and when it last changed. The claim reads due rows of
 * the registered kinds in (run_at, id) order from `jobs_claim`.
 */
export const jobQueue: Migration = {
  name: '010_job_queue',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('jobs').renameColumn('locked_until', 'leased_until').execute();
    await db.schema.alterTable('jobs').addColumn('lease_id', 'bigint').execute();
    await db.schema.alterTable('jobs').addColumn('instance_id', 'integer').execute();
    await db.schema
      .alterTable('jobs')
      .addColumn('message_id', 'bigint', (c) => c.references('messages.id').onDelete('cascade'))
      .execute();
    await db.schema.alterTable('jobs').addColumn('expires_at', 'bigint').execute();
    await db.schema
      .alterTable('jobs')
      .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema
      .alterTable('jobs')
      .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`update jobs set updated_at = created_at`.execute(db);
    // Send jobs written before this migration name their message in the payload only.
    await db.schema.createIndex('jobs_message_kind').on('jobs').columns(['message_id', 'kind']).unique().execute();
    await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'kind', 'run_at', 'id']).execute();
    await db.schema.dropIndex('jobs_due').execute();
    await db.schema.createIndex('jobs_expiry').on('jobs').column('expires_at').where(sql.ref('expires_at'), 'is not', null).execute();
  },
};
