/**
 * Finished rows for the drain part of the cost-growth benchmark: BENCH_FINISHED webhook deliveries
 * (with their events and one try each) or send jobs (with their messages) that ended over the last
 * 30 days, 1 in 20 failed, the rest delivered / done. Each is a copy of a row the service wrote
 * itself (the first of the benchmark's backlog), with its ids, state and times set per row, made
 * by SQL set statements; then statistics and a checkpoint, as in bench/growth/server.ts.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Store } from '../../src/store/store.js';
import { copyRows, idBase, series, CHUNK, settle } from './seed-sql.js';

const DAYS = 30;

/** The finished rows' times: spread evenly over the last 30 days, oldest first. */
function times(count: number) {
  const from = Date.now() - DAYS * 86_400_000;
  const step = Math.max(1, Math.floor((DAYS * 86_400_000) / Math.max(1, count)));
  return { from, at: (i: RawBuilder<number>) => sql<number>`${sql.lit(from)} + ${i} * ${sql.lit(step)}` };
}

const failed = (i: RawBuilder<number>) => sql`${i} % 20 = 0`;

/** Finished deliveries of the events of delivery `templateId` (a pending one, unclaimed yet). */
export async function seedFinishedDeliveries(store: Store, templateId: number, count: number, url: string): Promise<void> {
  if (count === 0) return;
  const { db } = store;
  const postgres = store.dialect === 'postgres';
  const template = await db.selectFrom('deliveries').select('event_id').where('id', '=', templateId).executeTakeFirstOrThrow();
  const { from, at } = times(count);
  const [eventBase, deliveryBase, attemptBase] = [idBase(14, from), idBase(14, from), idBase(14, from)];
  await copyRows(db, postgres, 'events', Number(template.event_id), count, (i) => ({ id: sql`${sql.lit(eventBase)} + ${i}`, created_at: at(i) }));
  await copyRows(db, postgres, 'deliveries', templateId, count, (i) => ({
    id: sql`${sql.lit(deliveryBase)} + ${i}`,
    event_id: sql`${sql.lit(eventBase)} + ${i}`,
    status: sql`case when ${failed(i)} then 'failed' else 'delivered' end`,
    attempts: sql`case when ${failed(i)} then 8 else 1 end`,
    next_attempt_at: at(i),
    locked_until: sql`null`,
    last_status_code: sql`case when ${failed(i)} then 500 else 200 end`,
    last_error: sql`case when ${failed(i)} then 'HTTP 500' else null end`,
    created_at: at(i),
    updated_at: sql`${at(i)} + 1000`,
    lease_id: sql`null`,
    locked_by: sql`null`,
  }));
  // One try per delivery (the last of a failed one), as the worker writes them.
  for (let start = 0; start < count; start += CHUNK) {
    const n = Math.min(CHUNK, count - start);
    const i = sql<number>`s.i`;
    await sql`insert into delivery_attempts (id, delivery_id, attempted_at, url, status_code, duration_ms, response_excerpt, error)
      select ${sql.lit(attemptBase)} + ${i}, ${sql.lit(deliveryBase)} + ${i}, ${at(i)} + 1000, ${sql.lit(url)},
        case when ${failed(i)} then 500 else 200 end, 40, case when ${failed(i)} then 'Internal Server Error' else 'ok' end, null
      from ${series(postgres, start, n)}`.execute(db);
  }
  await settle(db, postgres);
}

/** Finished send jobs (and their messages) like the send job `templateId` (a pending one, unclaimed yet). */
export async function seedFinishedSends(store: Store, templateId: number, count: number): Promise<void> {
  if (count === 0) return;
  const { db } = store;
  const postgres = store.dialect === 'postgres';
  const template = await db.selectFrom('jobs').select('message_id').where('id', '=', templateId).executeTakeFirstOrThrow();
  const { from, at } = times(count);
  const [messageBase, jobBase] = [idBase(14, from), idBase(14, from)];
  await copyRows(db, postgres, 'messages', Number(template.message_id), count, (i) => ({
    id: sql`${sql.lit(messageBase)} + ${i}`,
    status: sql`case when ${failed(i)} then 'failed' else 'delivered' end`,
    external_id: sql`'finished-' || cast(${i} as text)`,
    idempotency_key: sql`null`,
    request_hash: sql`null`,
    sent_at: sql`${at(i)} + 500`,
    delivered_at: sql`case when ${failed(i)} then null else ${at(i)} + 3000 end`,
    created_at: at(i),
  }));
  await copyRows(db, postgres, 'jobs', templateId, count, (i) => ({
    id: sql`${sql.lit(jobBase)} + ${i}`,
    message_id: sql`${sql.lit(messageBase)} + ${i}`,
    status: sql`case when ${failed(i)} then 'failed' else 'done' end`,
    attempts: sql`case when ${failed(i)} then t.max_attempts else 1 end`,
    run_at: at(i),
    expires_at: sql`case when t.expires_at is null then null else ${at(i)} + (t.expires_at - t.run_at) end`,
    lease_id: sql`null`,
    leased_until: sql`null`,
    instance_id: sql`null`,
    last_error: sql`case when ${failed(i)} then 'the provider refused the message' else null end`,
    created_at: at(i),
    updated_at: sql`${at(i)} + 500`,
  }));
  await settle(db, postgres);
}
