import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { EndableRequest, EndedJob } from './job-queue.js';
import { LAPSED_ERROR, ORPHANED_ERROR } from './job-rows.js';

/**
 * The end sweep of the job queue, the same on both dialects: which jobs can no longer run, and
 * ending them. Finding and ending are two steps so that a job's kind records what the end means
 * (e.g. fails its message) in between: a process that dies between the two leaves the job to be
 * found again, never ended untold.
 */

/** Wall time a lease is given when its process is known to have ended (the orphan sweep): lapsed for everyone. */
export const ENDED_LEASE = 0;

type Jobs = ExpressionBuilder<Database, 'jobs'>;

/** Past `expires_at`, and not under a live lease. */
function expiredWhere(eb: Jobs, now: number, leaseNow: number) {
  return eb.and([
    eb('expires_at', 'is not', null),
    eb('expires_at', '<=', now),
    eb.or([eb('status', '=', 'pending'), eb.and([eb('status', '=', 'running'), eb('leased_until', '<', leaseNow)])]),
  ]);
}

/** Running under a lease that ran out (or whose process ended), with no attempt left. */
function exhaustedWhere(eb: Jobs, leaseNow: number) {
  return eb.and([eb('status', '=', 'running'), eb('leased_until', '<', leaseNow), eb('attempts', '>=', eb.ref('max_attempts'))]);
}

export async function findEndable(db: Kysely<Database>, r: EndableRequest): Promise<EndedJob[]> {
  if (r.kinds.length === 0 || r.limit <= 0) return [];
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'kind', 'account_id', 'channel_id', 'message_id', 'payload', 'attempts', 'expires_at', 'leased_until', 'last_error'])
    .where('kind', 'in', [...r.kinds])
    .where((eb) => eb.or([expiredWhere(eb, r.now, r.leaseNow), exhaustedWhere(eb, r.leaseNow)]))
    .orderBy('id')
    .limit(r.limit)
    .execute();
  return rows.map((row) => {
    // Past its expiry it ended expired, whatever its attempts (the order of endJobs too).
    const expired = row.expires_at !== null && Number(row.expires_at) <= r.now;
    const orphaned = row.leased_until !== null && Number(row.leased_until) === ENDED_LEASE;
    return {
      id: Number(row.id),
      kind: row.kind,
      accountId: Number(row.account_id),
      channelId: Number(row.channel_id),
      messageId: row.message_id === null ? null : Number(row.message_id),
      payload: row.payload,
      attempts: Number(row.attempts),
      reason: expired ? 'expired' : 'attempts_exhausted',
      lastError: expired ? row.last_error : orphaned ? ORPHANED_ERROR : LAPSED_ERROR,
    };
  });
}

/** Ends jobs `findEndable` found with the same times, each only while it still is as found. Returns how many ended. */
export async function endJobs(db: Kysely<Database>, jobs: readonly EndedJob[], r: { now: number; leaseNow: number }): Promise<number> {
  let ended = 0;
  const expired = jobs.filter((j) => j.reason === 'expired').map((j) => j.id);
  if (expired.length > 0) {
    const result = await db
      .updateTable('jobs')
      .set({ status: 'expired', lease_id: null, leased_until: null, updated_at: r.now })
      .where('id', 'in', expired)
      .where((eb) => expiredWhere(eb, r.now, r.leaseNow))
      .executeTakeFirst();
    ended += Number(result.numUpdatedRows);
  }
  for (const error of [LAPSED_ERROR, ORPHANED_ERROR]) {
    const ids = jobs.filter((j) => j.reason === 'attempts_exhausted' && j.lastError === error).map((j) => j.id);
    if (ids.length === 0) continue;
    const result = await db
      .updateTable('jobs')
      .set({ status: 'failed', last_error: error, lease_id: null, leased_until: null, updated_at: r.now })
      .where('id', 'in', ids)
      .where((eb) => exhaustedWhere(eb, r.leaseNow))
      .executeTakeFirst();
    ended += Number(result.numUpdatedRows);
  }
  return ended;
}
