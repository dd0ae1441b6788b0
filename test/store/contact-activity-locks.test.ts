import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase, postgresAvailable } from '../helpers/databases.js';

const pgOk = await postgresAvailable();

const NOW = 1_800_000_000_000;

/** A message of contact 1 on channel 1, stored at `at` (the activity trigger moves the contact's time once `at` is a second past it). */
function insertMessage(client: pg.Client, id: number, at: number) {
  return client.query(
    `insert into messages (id, account_id, channel_id, contact_id, direction, content, status, sent_at, created_at)
     values ($1, 1, 1, 1, 'sent', '{}', 'sent', $2, $2)`,
    [id, at],
  );
}

describe('the contact activity trigger and concurrent writers (PostgreSQL)', { skip: pgOk ? false : 'PostgreSQL not reachable' }, () => {
  test('two transactions that wrote messages to the same contact both commit: the trigger does not deadlock with foreign-key locks', async () => {
    const db = await createTestDatabase('postgres');
    const clients = [new pg.Client({ connectionString: db.url }), new pg.Client({ connectionString: db.url })];
    try {
      for (const c of clients) await c.connect();
      const [a, b] = clients as [pg.Client, pg.Client];
      await a.query(`insert into accounts (id, name, plan, created_at) values (1, 'a', 'enterprise', 0)`);
      await a.query(`insert into channels (id, account_id, type, name, mode, config, created_at, updated_at) values (1, 1, 'mobile', 'c', 'test', '{}', 0, 0)`);
      await a.query(
        `insert into contacts (id, account_id, channel_id, phone_number, created_at, updated_at, last_activity_at) values (1, 1, 1, '+15550001', 0, 0, $1)`,
        [NOW],
      );
      // Each holds the key-share lock of its message's foreign-key check on contact 1 (activity
      // not stale yet: the trigger updates nothing), as two concurrent batch statements do.
      await a.query('begin');
      await b.query('begin');
      await insertMessage(a, 1, NOW + 10);
      await insertMessage(b, 2, NOW + 20);
      // Then each stores a message a second later: each trigger now updates contact 1.
      const first = insertMessage(a, 3, NOW + 2000).then(() => a.query('commit'));
      // Give a's trigger the time to reach its lock before b's does.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const second = insertMessage(b, 4, NOW + 3000).then(() => b.query('commit'));
      const outcomes = await Promise.allSettled([first, second]);
      const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [String((o.reason as Error).message)] : []));
      assert.deepEqual(failures, [], 'neither transaction failed');
      const { rows } = await a.query<{ n: string; at: string }>(
        'select (select count(*) from messages) as n, (select last_activity_at from contacts where id = 1) as at',
      );
      assert.equal(Number(rows[0]!.n), 4, 'all four messages stored');
      assert.equal(Number(rows[0]!.at), NOW + 3000, "the contact's activity is its newest message's time");
    } finally {
      for (const c of clients) await c.end().catch(() => undefined);
      await db.drop();
    }
  });
});
