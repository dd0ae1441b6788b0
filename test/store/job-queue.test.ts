import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, openTestStore, type TestDatabase } from '../helpers/databases.js';
import { seedChannelContact } from '../helpers/store-rows.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import type { JobOutcome, JobQueue, NewJob } from '../../src/store/job-queue.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/lib/logger.js';
import { eventually } from '../helpers/waits.js';
import { QueueRunner } from '../../src/queue/runner.js';
import { JobKinds, JobsTask, newJob, type JobKind, type JobResult } from '../../src/queue/jobs-task.js';
import type { ClaimedJob } from '../../src/store/job-queue.js';

/**
 * One contract, both dialects: the job queue of the store (store/job-queue.ts) and the queue
 * runner over it (queue/runner.ts, queue/jobs-task.ts). Waits are on events (a handler called,
 * outcomes written) and time is the injected clock, never a fixed sleep.
 */

const logger = createLogger('silent');
const LEASE_MS = 60_000;

/** A promise with its resolve function, for waiting on events. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The queue, telling `onComplete` after each batch of outcomes is written. */
function observed(queue: JobQueue, onComplete: (outcomes: readonly JobOutcome[]) => void): JobQueue {
  return new Proxy(queue, {
    get(target, key, receiver) {
      if (key === 'complete')
        return async (outcomes: readonly JobOutcome[]) => {
          await target.complete(outcomes);
          onComplete(outcomes);
        };
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

for (const { dialect, skip } of await dialects()) {
  describe(`Job queue (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let nextId = 1000;
    const id = () => ++nextId;
    const ACCOUNT = 1;
    const CHANNEL = 2;
    const CONTACT = 3;
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const wall = new ManualClock(Date.UTC(2026, 0, 1));

    before(async () => {
      ({ db, store } = await openTestStore(dialect));
      await seedChannelContact(store, { account: ACCOUNT, channel: CHANNEL, contact: CONTACT }, { type: 'service_chat', externalId: 'x' });
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    async function message(): Promise<number> {
      const messageId = id();
      await store.batchWrite({
        insert: {
          messages: [
            {
              id: messageId,
              account_id: ACCOUNT,
              channel_id: CHANNEL,
              contact_id: CONTACT,
              direction: 'sent',
              content: '{}',
              metadata: null,
              status: 'accepted',
              external_id: null,
              error: null,
              idempotency_key: null,
              request_hash: null,
              sent_at: 1,
              delivered_at: null,
              read_at: null,
              created_at: 1,
            },
          ],
        },
      });
      return messageId;
    }

    function job(kind: string, fields: Partial<NewJob> = {}): NewJob {
      return {
        id: id(),
        accountId: ACCOUNT,
        channelId: CHANNEL,
        messageId: null,
        kind,
        payload: '{}',
        runAt: clock.now(),
        expiresAt: null,
        maxAttempts: 1,
        createdAt: clock.now(),
        ...fields,
      };
    }

    const row = (jobId: number) => store.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();

    function claimRequest(kinds: string[], fields: { leaseId?: number; instanceId?: number; limit?: number } = {}) {
      return {
        kinds,
        now: clock.now(),
        leaseNow: wall.now(),
        leaseUntil: wall.now() + LEASE_MS,
        leaseId: fields.leaseId ?? id(),
        instanceId: fields.instanceId ?? store.instanceId,
        limit: fields.limit ?? 10,
      };
    }

    /** A job kind whose handler the test drives. */
    function kindOf(kind: string, handle: (job: ClaimedJob, signal: AbortSignal) => Promise<JobResult>): JobKind<unknown> {
      return {
        kind,
        encode: (input) => JSON.stringify(input),
        decode: (payload) => JSON.parse(payload) as unknown,
        handle: (_input, j, signal) => handle(j, signal),
      };
    }

    function runnerFor(
      s: Store,
      kind: JobKind<unknown>,
      options: { onComplete?: (o: readonly JobOutcome[]) => void; concurrency?: number; graceMs?: number } = {},
    ) {
      const kinds = new JobKinds().register(kind);
      const task = new JobsTask({
        queue: observed(s.jobQueue, options.onComplete ?? (() => undefined)),
        kinds,
        clock,
        wallClock: wall,
        concurrency: options.concurrency ?? 4,
        leaseMs: LEASE_MS,
        logger,
      });
      return new QueueRunner(task, { instanceId: s.instanceId, nextId: id, pollMs: 20, logger, wallClock: wall, shutdownGraceMs: options.graceMs ?? 5000 });
    }

    /** Resolves once the outcomes of `ids` are all written. */
    function outcomesOf(ids: number[]): { onComplete: (o: readonly JobOutcome[]) => void; written: Promise<void> } {
      const left = new Set(ids);
      const done = deferred();
      return {
        onComplete: (outcomes) => {
          for (const o of outcomes) left.delete(o.id);
          if (left.size === 0) done.resolve();
        },
        written: done.promise,
      };
    }

    test('enqueue is idempotent per message and kind', async () => {
      const m = await message();
      assert.equal(await store.jobQueue.enqueue([job('idem-a', { messageId: m })]), 1);
      assert.equal(await store.jobQueue.enqueue([job('idem-a', { messageId: m })]), 0, 'the same message and kind again');
      assert.equal(await store.jobQueue.enqueue([job('idem-b', { messageId: m })]), 1, 'another kind for the message');
      assert.equal(await store.jobQueue.enqueue([job('idem-a'), job('idem-a')]), 2, 'jobs not about a message are not deduplicated');
      const rows = await store.db.selectFrom('jobs').select(['kind', 'status', 'attempts']).where('message_id', '=', m).orderBy('kind').execute();
      assert.deepEqual(
        rows.map((r) => [r.kind, r.status, Number(r.attempts)]),
        [
          ['idem-a', 'pending', 0],
          ['idem-b', 'pending', 0],
        ],
      );
    });

    test('a claim takes due jobs of its kinds only, and counts an attempt', async () => {
      const due = job('claim-a');
      const later = job('claim-a', { runAt: clock.now() + 1000 });
      const other = job('claim-b');
      await store.jobQueue.enqueue([due, later, other]);
      const request = claimRequest(['claim-a']);
      const claimed = await store.jobQueue.claim(request);
      assert.deepEqual(
        claimed.map((j) => j.id),
        [due.id],
      );
      assert.equal(claimed[0]!.attempts, 1);
      assert.equal(claimed[0]!.leaseId, request.leaseId);
      const r = await row(due.id);
      assert.equal(r.status, 'running');
      assert.equal(Number(r.instance_id), store.instanceId);
      assert.equal(Number(r.leased_until), request.leaseUntil);
      assert.equal((await store.jobQueue.claim(claimRequest(['claim-a']))).length, 0, 'held under a live lease');
      await store.jobQueue.release([due.id], request.leaseId);
      const released = await row(due.id);
      assert.equal(released.status, 'pending');
      assert.equal(Number(released.attempts), 0, 'a job given back unrun gets its attempt back');
    });

    test('per account: an account with a job of the kind running under a live lease, or told to skip, is left out; a lapsed lease frees it', async () => {
      const OTHER_ACCOUNT = 9;
      const OTHER_CHANNEL = 10;
      // The other account's contact is not used: the helper writes one with every channel.
      await seedChannelContact(store, { account: OTHER_ACCOUNT, channel: OTHER_CHANNEL, contact: 11 }, { type: 'service_chat', externalId: 'y' });
      const a1 = job('per-account', { maxAttempts: 3 });
      const a2 = job('per-account');
      const b1 = job('per-account', { accountId: OTHER_ACCOUNT, channelId: OTHER_CHANNEL });
      const elsewhere = job('per-account-other-kind');
      await store.jobQueue.enqueue([a1, a2, b1, elsewhere]);
      const perAccount = (skipAccounts: number[] = []) => ({ ...claimRequest(['per-account'], { limit: 1 }), perAccount: { skipAccounts } });
      // An account told to skip is left out, though its job comes first.
      const skipped = perAccount([ACCOUNT]);
      assert.deepEqual(
        (await store.jobQueue.claim(skipped)).map((j) => j.id),
        [b1.id],
      );
      await store.jobQueue.release([b1.id], skipped.leaseId);
      // Another process holds a1: a2 waits, b1 is claimed.
      const held = await store.jobQueue.claim({ ...claimRequest(['per-account'], { instanceId: store.instanceId + 1000, limit: 1 }) });
      assert.deepEqual(
        held.map((j) => j.id),
        [a1.id],
      );
      assert.deepEqual(
        (await store.jobQueue.claim(perAccount())).map((j) => j.id),
        [b1.id],
      );
      assert.equal((await store.jobQueue.claim(perAccount())).length, 0, 'a2 waits while a1 runs under a live lease');
      // A running job of another kind does not count.
      assert.equal((await store.jobQueue.claim(claimRequest(['per-account-other-kind']))).length, 1);
      // a1's lease runs out: its account is free again, and a1 itself is claimed again before a2,
      // here by another process, so a2 waits for it again.
      wall.advance(LEASE_MS + 1);
      assert.deepEqual(
        (
          await store.jobQueue.claim({ ...claimRequest(['per-account'], { instanceId: store.instanceId + 1000, limit: 1 }), perAccount: { skipAccounts: [] } })
        ).map((j) => j.id),
        [a1.id],
      );
      assert.equal((await store.jobQueue.claim(perAccount())).length, 0, 'a2 waits for a1 again');
      // This process's own running jobs are its to count (in skipAccounts): a row of its own still
      // marked running (its outcome not committed yet) does not hold the account back.
      wall.advance(LEASE_MS + 1);
      const own = perAccount();
      assert.deepEqual(
        (await store.jobQueue.claim(own)).map((j) => j.id),
        [a1.id],
      );
      assert.equal((await store.jobQueue.claim(perAccount([ACCOUNT]))).length, 0, 'told to skip its own account, it does');
      assert.deepEqual(
        (await store.jobQueue.claim(perAccount())).map((j) => j.id),
        [a2.id],
      );
    });

    test('a claim of several kinds fills its limit kind by kind, in the order given, each in due order, lapsed leases included', async () => {
      const t = clock.now();
      // The second kind's jobs are due earlier than the first's: the order of the kinds still comes first.
      const a1 = job('multi-a', { runAt: t - 10, maxAttempts: 3 });
      const a2 = job('multi-a', { runAt: t - 5 });
      const b1 = job('multi-b', { runAt: t - 300 });
      const b2 = job('multi-b', { runAt: t - 200 });
      const c1 = job('multi-c', { runAt: t - 400 });
      const notDue = job('multi-a', { runAt: t + 1000 });
      await store.jobQueue.enqueue([a1, a2, b1, b2, c1, notDue]);
      // a1's lease runs out: it comes back with its kind, in due order, as the lapsed lease it is.
      assert.equal((await store.jobQueue.claim({ ...claimRequest(['multi-a']), limit: 1 })).length, 1);
      wall.advance(LEASE_MS + 1);

      const claimed = await store.jobQueue.claim(claimRequest(['multi-a', 'multi-b', 'multi-c'], { limit: 3 }));
      assert.deepEqual(
        claimed.map((j) => j.id).sort((x, y) => x - y),
        [a1.id, a2.id, b1.id].sort((x, y) => x - y),
        'both of the first kind, then the earliest of the second; the limit leaves the rest',
      );
      assert.equal(claimed.find((j) => j.id === a1.id)!.attempts, 2, 'the lapsed lease is taken again, a second attempt');
      const rest = await store.jobQueue.claim(claimRequest(['multi-c', 'multi-b']));
      assert.deepEqual(
        rest.map((j) => j.id).sort((x, y) => x - y),
        [b2.id, c1.id].sort((x, y) => x - y),
      );
      assert.equal((await row(notDue.id)).status, 'pending', 'a job not yet due is never claimed');
    });

    test('a lease that runs out is claimed again; the first holder can no longer complete it', async () => {
      const j = job('lapse', { maxAttempts: 3 });
      await store.jobQueue.enqueue([j]);
      const first = claimRequest(['lapse']);
      assert.equal((await store.jobQueue.claim(first)).length, 1);
      wall.advance(LEASE_MS + 1);
      const second = claimRequest(['lapse']);
      const again = await store.jobQueue.claim(second);
      assert.deepEqual(
        again.map((x) => [x.id, x.attempts]),
        [[j.id, 2]],
      );
      await store.jobQueue.complete([{ id: j.id, leaseId: first.leaseId, status: 'done', runAt: 0, lastError: null, updatedAt: clock.now() }]);
      assert.equal((await row(j.id)).status, 'running', "the first holder's outcome is ignored");
      await store.jobQueue.complete([{ id: j.id, leaseId: second.leaseId, status: 'done', runAt: 0, lastError: null, updatedAt: clock.now() }]);
      assert.equal((await row(j.id)).status, 'done');
    });

    test('a runner runs a job whose lease ran out', async () => {
      const kind = `lapse-run-${dialect}`;
      const j = job(kind, { maxAttempts: 2 });
      await store.jobQueue.enqueue([j]);
      // Claimed by a worker that hangs, in a process that lives on (PostgreSQL: another connection
      // holding its instance number, so the orphan sweep leaves the job to its lease).
      const other = dialect === 'postgres' ? await openStore(db.url) : store;
      assert.equal((await other.jobQueue.claim(claimRequest([kind], { instanceId: other.instanceId }))).length, 1);
      wall.advance(LEASE_MS + 1);
      const ran = deferred<ClaimedJob>();
      const { onComplete, written } = outcomesOf([j.id]);
      const runner = runnerFor(
        store,
        kindOf(kind, (claimed) => {
          ran.resolve(claimed);
          return Promise.resolve({ ok: true });
        }),
        { onComplete },
      );
      runner.start();
      assert.equal((await ran.promise).attempts, 2);
      await written;
      await runner.stop();
      if (other !== store) await other.close();
      assert.equal((await row(j.id)).status, 'done');
    });

    test('orphans of an instance that ended are freed', async () => {
      const kind = 'orphan';
      const retryable = job(kind, { maxAttempts: 2 });
      const last = job(kind, { maxAttempts: 1 });
      await store.jobQueue.enqueue([retryable, last]);
      // Claimed under an instance number no process holds (PostgreSQL), or before this process started (SQLite).
      const dead = dialect === 'postgres' ? 15 : store.instanceId;
      assert.equal((await store.jobQueue.claim(claimRequest([kind], { instanceId: dead }))).length, 2);
      const freed = await store.jobQueue.releaseOrphans(dialect === 'postgres' ? null : store.instanceId);
      assert.equal(freed, 2);
      const a = await row(retryable.id);
      assert.equal(a.status, 'pending');
      assert.equal(a.lease_id, null);
      // Its last attempt was lost with the process: the end sweep finds it at once and fails it.
      const reclaim = claimRequest([kind]);
      assert.deepEqual(
        (await store.jobQueue.claim(reclaim)).map((j) => j.id),
        [retryable.id],
        'the job with no attempt left is not claimed',
      );
      await store.jobQueue.release([retryable.id], reclaim.leaseId);
      const times = { now: clock.now(), leaseNow: wall.now() };
      const endable = await store.jobQueue.endable({ kinds: [kind], ...times, limit: 10 });
      assert.deepEqual(
        endable.map((j) => [j.id, j.reason, j.attempts]),
        [[last.id, 'attempts_exhausted', 1]],
      );
      assert.equal(await store.jobQueue.end(endable, times), 1);
      assert.equal(await store.jobQueue.end(endable, times), 0, 'ended once');
      const b = await row(last.id);
      assert.equal(b.status, 'failed', 'its last attempt was lost with the process');
      assert.ok(b.last_error);
      if (dialect === 'postgres') {
        const own = job(kind, { maxAttempts: 2 });
        await store.jobQueue.enqueue([own]);
        await store.jobQueue.claim(claimRequest([kind]));
        assert.equal(await store.jobQueue.releaseOrphans(null), 0, 'a live instance keeps its jobs');
        assert.equal((await row(own.id)).status, 'running');
      }
    });

    test("an instance number leased on another database keeps none of this one's orphans", { skip: dialect !== 'postgres' }, async () => {
      // Two stores on a database of their own lease numbers there; the one this store does not hold is dead here.
      const elsewhere = await openTestStore('postgres');
      const second = await openStore(elsewhere.db.url);
      try {
        const dead = [elsewhere.store.idInstance(), second.idInstance()].find((n) => n !== store.idInstance())!;
        const kind = 'orphan-elsewhere';
        const j = job(kind, { maxAttempts: 2 });
        await store.jobQueue.enqueue([j]);
        assert.equal((await store.jobQueue.claim(claimRequest([kind], { instanceId: dead }))).length, 1);
        assert.equal(await store.jobQueue.releaseOrphans(null), 1);
        assert.equal((await row(j.id)).status, 'pending');
      } finally {
        await second.close();
        await elsewhere.store.close();
        await elsewhere.db.drop();
      }
    });

    test('a job past expires_at is not run and ends expired', async () => {
      const kind = `expiry-${dialect}`;
      const stale = job(kind, { expiresAt: clock.now() + 1000, runAt: clock.now() });
      await store.jobQueue.enqueue([stale]);
      clock.advance(1000);
      assert.equal((await store.jobQueue.claim(claimRequest([kind]))).length, 0);
      let ran = false;
      const runner = runnerFor(
        store,
        kindOf(kind, () => {
          ran = true;
          return Promise.resolve({ ok: true });
        }),
      );
      runner.start();
      await runner.sweep();
      await runner.stop();
      assert.equal(ran, false);
      const r = await row(stale.id);
      assert.equal(r.status, 'expired');
      assert.equal(Number(r.attempts), 0);
    });

    test("the end sweep tells the job's kind before it ends the job, and again when the kind could not record it", async () => {
      const kind = `ended-${dialect}`;
      const stale = job(kind, { expiresAt: clock.now() + 1000, maxAttempts: 3 });
      const lapsed = job(kind, { maxAttempts: 1 });
      await store.jobQueue.enqueue([stale, lapsed]);
      // The last attempt of `lapsed` is claimed by a worker that never finishes it (a process that lives on).
      const other = dialect === 'postgres' ? await openStore(db.url) : store;
      try {
        const claimed = await other.jobQueue.claim({ ...claimRequest([kind], { instanceId: other.instanceId }), limit: 1 });
        assert.deepEqual(
          claimed.map((j) => j.id),
          [stale.id],
        );
        assert.equal((await other.jobQueue.claim(claimRequest([kind], { instanceId: other.instanceId }))).length, 1);
        clock.advance(1000);
        wall.advance(LEASE_MS + 1);
        const told: Array<[number, string, string | null]> = [];
        let refuse = true;
        const runner = runnerFor(store, {
          ...kindOf(kind, () => Promise.reject(new Error('never run'))),
          onEnded: (_input, ended) => {
            if (refuse) return Promise.reject(new Error('database away'));
            told.push([ended.id, ended.reason, ended.lastError]);
            return Promise.resolve();
          },
        });
        await runner.sweep();
        assert.equal((await row(stale.id)).status, 'running', 'not ended while its kind could not record it');
        assert.equal((await row(lapsed.id)).status, 'running');
        refuse = false;
        await runner.sweep();
        assert.deepEqual(
          told.sort((a, b) => a[0] - b[0]),
          [
            [stale.id, 'expired', null],
            [lapsed.id, 'attempts_exhausted', 'Its last attempt did not finish in time.'],
          ],
        );
        assert.equal((await row(stale.id)).status, 'expired');
        assert.equal((await row(lapsed.id)).status, 'failed');
        await runner.sweep();
        assert.equal(told.length, 2, 'told once they ended');
      } finally {
        if (other !== store) await other.close();
      }
    });

    test('a handler that throws on its last attempt: the kind is told before the job fails', async () => {
      const kind = `thrown-${dialect}`;
      const j = job(kind, { maxAttempts: 1 });
      await store.jobQueue.enqueue([j]);
      const told = deferred<string>();
      const { onComplete, written } = outcomesOf([j.id]);
      const runner = runnerFor(
        store,
        {
          ...kindOf(kind, () => Promise.reject(new Error('boom'))),
          onEnded: (_input, ended) => {
            told.resolve(`${ended.reason}: ${ended.lastError}`);
            return Promise.resolve();
          },
        },
        { onComplete },
      );
      runner.start();
      assert.equal(await told.promise, 'attempts_exhausted: boom');
      await written;
      await runner.stop();
      assert.equal((await row(j.id)).status, 'failed');
    });

    test('attempts are counted and a retryable failure is tried again later', async () => {
      const kind = `retry-${dialect}`;
      const j = job(kind, { maxAttempts: 2 });
      const once = job(kind, { maxAttempts: 1 });
      await store.jobQueue.enqueue([j, once]);
      const calls: Array<[number, number]> = [];
      let outcomes = outcomesOf([j.id, once.id]);
      const runner = runnerFor(
        store,
        kindOf(kind, (claimed) => {
          calls.push([claimed.id, claimed.attempts]);
          return Promise.resolve(claimed.attempts === 1 ? { ok: false, retryable: true, error: 'busy', retryAfterMs: 5000 } : { ok: true });
        }),
        { onComplete: (o) => outcomes.onComplete(o) },
      );
      runner.start();
      await outcomes.written;
      const waiting = await row(j.id);
      assert.equal(waiting.status, 'pending');
      assert.equal(Number(waiting.attempts), 1);
      assert.equal(Number(waiting.run_at), clock.now() + 5000);
      assert.equal(waiting.last_error, 'busy');
      const spent = await row(once.id);
      assert.equal(spent.status, 'failed', 'no attempt left');
      outcomes = outcomesOf([j.id]);
      clock.advance(5000);
      runner.wake();
      await outcomes.written;
      await runner.stop();
      const done = await row(j.id);
      assert.equal(done.status, 'done');
      assert.equal(Number(done.attempts), 2);
      assert.deepEqual(
        calls.filter(([x]) => x === j.id),
        [
          [j.id, 1],
          [j.id, 2],
        ],
      );
    });

    test('stop waits for the handlers in flight', async () => {
      const kind = `stop-${dialect}`;
      const j = job(kind);
      await store.jobQueue.enqueue([j]);
      const started = deferred();
      const gate = deferred<JobResult>();
      const runner = runnerFor(
        store,
        kindOf(kind, () => {
          started.resolve();
          return gate.promise;
        }),
      );
      runner.start();
      await started.promise;
      let stopped = false;
      const stopping = runner.stop().then(() => (stopped = true));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(stopped, false, 'still waiting for the handler');
      gate.resolve({ ok: true });
      await stopping;
      assert.equal((await row(j.id)).status, 'done', 'its outcome was written before stop returned');
    });

    test('after the grace period stop aborts the handlers, and their jobs are given back', async () => {
      const kind = `abort-${dialect}`;
      const j = job(kind);
      await store.jobQueue.enqueue([j]);
      const started = deferred();
      const runner = runnerFor(
        store,
        kindOf(kind, (_job, signal) => {
          started.resolve();
          return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ ok: false, retryable: true, error: 'cut off' })));
        }),
        { graceMs: 10 },
      );
      runner.start();
      await started.promise;
      await runner.stop();
      const r = await row(j.id);
      assert.equal(r.status, 'pending');
      assert.equal(Number(r.attempts), 0);
    });

    test('two runners never run a job twice', async () => {
      const kind = `pair-${dialect}`;
      // PostgreSQL: two store connections, as two processes would have; SQLite: one process, one file.
      const other = dialect === 'postgres' ? await openStore(db.url) : store;
      try {
        const jobs = Array.from({ length: 60 }, () => job(kind, { maxAttempts: 3 }));
        await store.jobQueue.enqueue(jobs);
        const runs = new Map<number, number>();
        const all = deferred();
        // A job is held until both runners have claimed (10 s at most): on a loaded machine one
        // runner could otherwise take all 60 before the other's first claim, which proves nothing.
        const bothClaimed = async () => {
          const end = Date.now() + 10_000;
          while (!(a.stats.claimed > 0 && b.stats.claimed > 0) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 5));
        };
        const handler = kindOf(kind, async (claimed) => {
          runs.set(claimed.id, (runs.get(claimed.id) ?? 0) + 1);
          await bothClaimed();
          await new Promise((resolve) => setImmediate(resolve));
          if (runs.size === jobs.length) all.resolve();
          return { ok: true };
        });
        const a = runnerFor(store, handler, { concurrency: 3 });
        const b = runnerFor(other, handler, { concurrency: 3 });
        a.start();
        b.start();
        await all.promise;
        await Promise.all([a.stop(), b.stop()]);
        assert.equal(runs.size, jobs.length);
        assert.deepEqual(
          [...runs.values()].filter((n) => n !== 1),
          [],
          'each job ran once',
        );
        assert.ok(a.stats.claimed > 0 && b.stats.claimed > 0, 'both runners took jobs');
        const states = await store.db.selectFrom('jobs').select(['status', 'attempts']).where('kind', '=', kind).execute();
        assert.deepEqual(new Set(states.map((s) => `${s.status}/${Number(s.attempts)}`)), new Set(['done/1']));
      } finally {
        if (other !== store) await other.close();
      }
    });

    test('a failover job made due while it runs (a report on its step) runs again at once, not after its own wait', async () => {
      // The injected clock stands still: without the report's due time the job's own wait (30 s)
      // never comes, so a second run proves the report was kept through the first run's completion.
      const kind = 'failover';
      const messageId = await message();
      const j = job(kind, { messageId, maxAttempts: 10 });
      await store.jobQueue.enqueue([j]);
      const running = deferred();
      const release = deferred();
      let runs = 0;
      const runner = runnerFor(
        store,
        kindOf(kind, async () => {
          runs += 1;
          if (runs > 1) return { ok: true };
          running.resolve();
          await release.promise;
          return { ok: true, waitMs: 30_000 };
        }),
      );
      runner.start();
      try {
        await running.promise;
        clock.advance(1);
        await store.transaction((tx) => tx.failovers.poke([messageId], clock.now()));
        release.resolve();
        await eventually(async () => (runs >= 2 ? true : undefined), 5000, 'the job run again for the report');
      } finally {
        release.resolve();
        await runner.stop();
      }

      // Without a report meanwhile, the job's own wait stands.
      const other = job(kind, { messageId: await message(), maxAttempts: 10 });
      await store.jobQueue.enqueue([other]);
      const [claimed] = await store.jobQueue.claim(claimRequest([kind]));
      assert.equal(claimed!.id, other.id);
      await store.jobQueue.complete([
        { id: other.id, leaseId: claimed!.leaseId, status: 'pending', runAt: clock.now() + 30_000, lastError: null, updatedAt: clock.now() },
      ]);
      assert.equal(Number((await row(other.id)).run_at), clock.now() + 30_000);
    });

    test('newJob writes a typed input the handler reads back', async () => {
      const kind: JobKind<{ to: string }> = {
        kind: `typed-${dialect}`,
        encode: (input) => JSON.stringify(input),
        decode: (payload) => JSON.parse(payload) as { to: string },
        handle: () => Promise.resolve({ ok: true }),
      };
      const m = await message();
      const row0 = newJob(
        kind,
        { to: 'x' },
        { id: id(), accountId: ACCOUNT, channelId: CHANNEL, messageId: m, runAt: clock.now(), maxAttempts: 2 },
        clock.now(),
      );
      assert.equal(await store.jobQueue.enqueue([row0]), 1);
      const [claimed] = await store.jobQueue.claim(claimRequest([kind.kind]));
      assert.deepEqual(kind.decode(claimed!.payload), { to: 'x' });
      assert.equal(claimed!.messageId, m);
      assert.equal(claimed!.maxAttempts, 2);
    });
  });
}
