import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, openTestStore, type TestDatabase } from '../helpers/databases.js';
import { seedChannelContact } from '../helpers/store-rows.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';

/**
 * The compare-and-set that starts a failover step (FailoversRepo.advance, as the `failover` job
 * writes it with the step's message and send job in one transaction): of two callers that read
 * the same step and try to start the next one at once, exactly one does; the other finds the step
 * moved and writes nothing.
 */
for (const { dialect, skip, test } of await dialects()) {
  describe(`Failover chains in the store (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let other: Store;
    let nextId = 5000;
    const id = () => ++nextId;
    const ACCOUNT = 1;
    const CHANNEL = 2;
    const CONTACT = 3;
    const NOW = Date.UTC(2026, 0, 1);

    before(async () => {
      ({ db, store } = await openTestStore(dialect));
      // PostgreSQL: a second store is a second pool of connections, as another process has.
      other = dialect === 'postgres' ? await openStore(db.url) : store;
      await seedChannelContact(store, { account: ACCOUNT, channel: CHANNEL, contact: CONTACT }, { type: 'mobile', phoneNumber: '+420601000001' });
    });
    after(async () => {
      if (other !== store) await other?.close();
      await store?.close();
      await db?.drop();
    });

    const messageRow = (messageId: number, status: string) => ({
      id: messageId,
      account_id: ACCOUNT,
      channel_id: CHANNEL,
      contact_id: CONTACT,
      direction: 'sent',
      content: '{"type":"text","payload":"hi"}',
      metadata: null,
      status,
      external_id: null,
      error: null,
      idempotency_key: null,
      request_hash: null,
      sent_at: NOW,
      delivered_at: null,
      read_at: null,
      created_at: NOW,
    });

    const stepRow = (messageId: number, failoverId: number, step: number) => ({
      message_id: messageId,
      failover_id: failoverId,
      step,
      channel_id: CHANNEL,
      contact_id: CONTACT,
      started_at: NOW,
      deadline_at: NOW + 1000,
      ended_at: null,
      outcome: null,
    });

    /** A running chain at its first step, whose message failed. */
    async function chain(): Promise<number> {
      const first = id();
      await store.transaction((tx) =>
        tx.failovers.insertUnit({
          insert: {
            messages: [messageRow(first, 'failed')],
            failovers: [{ id: first, account_id: ACCOUNT, step: 0, state: 'running', plan: '[]', created_at: NOW, updated_at: NOW }],
            failover_steps: [stepRow(first, first, 0)],
          },
        }),
      );
      return first;
    }

    /** What the job writes to start step 1: the move, the step's message and its send job; false when the step had moved. */
    function startStep(s: Store, failoverId: number, from: number): Promise<{ moved: boolean; messageId: number }> {
      const messageId = id();
      return s.transaction(async (tx) => {
        if (!(await tx.failovers.advance(failoverId, from, from + 1, NOW + 1))) return { moved: false, messageId };
        await tx.failovers.endStep(failoverId, 'failed', NOW + 1);
        await tx.failovers.insertUnit({
          insert: {
            messages: [messageRow(messageId, 'queued')],
            jobs: [
              {
                id: id(),
                account_id: ACCOUNT,
                channel_id: CHANNEL,
                message_id: messageId,
                kind: 'send',
                payload: '{}',
                status: 'pending',
                attempts: 0,
                max_attempts: 5,
                run_at: NOW + 1,
                expires_at: null,
                last_error: null,
                created_at: NOW + 1,
                updated_at: NOW + 1,
              },
            ],
            failover_steps: [stepRow(messageId, failoverId, from + 1)],
          },
        });
        return { moved: true, messageId };
      });
    }

    test('two callers start the same step at once: exactly one does, the other starts no message and no send job', async () => {
      for (let round = 0; round < 5; round++) {
        const failoverId = await chain();
        const results = await Promise.all([startStep(store, failoverId, 0), startStep(other, failoverId, 0)]);
        assert.equal(results.filter((r) => r.moved).length, 1, 'one caller started the step');
        const winner = results.find((r) => r.moved)!;
        const loser = results.find((r) => !r.moved)!;

        const steps = await store.db.selectFrom('failover_steps').selectAll().where('failover_id', '=', failoverId).orderBy('step').execute();
        assert.deepEqual(
          steps.map((s) => [Number(s.step), Number(s.message_id)]),
          [
            [0, failoverId],
            [1, winner.messageId],
          ],
        );
        assert.equal(steps[0]!.outcome, 'failed');
        const chainRow = await store.failovers.find(ACCOUNT, failoverId);
        assert.equal(Number(chainRow!.step), 1);
        assert.equal(chainRow!.state, 'running');
        const messages = await store.db.selectFrom('messages').select('id').where('id', 'in', [winner.messageId, loser.messageId]).execute();
        assert.deepEqual(
          messages.map((m) => Number(m.id)),
          [winner.messageId],
        );
        const jobs = await store.db.selectFrom('jobs').select('message_id').where('message_id', 'in', [winner.messageId, loser.messageId]).execute();
        assert.deepEqual(
          jobs.map((j) => Number(j.message_id)),
          [winner.messageId],
        );

        // Either caller trying again finds the step moved.
        assert.equal((await startStep(other, failoverId, 0)).moved, false);
      }
    });
  });
}
