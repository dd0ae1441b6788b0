import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { freePort } from '../helpers/runtime.js';
import { ApiClient } from '../helpers/api-client.js';
import { openStore } from '../../src/store/open.js';
import { accountWithToken, baseEnv, spawnServer, waitUntilReady, type ServerProcess } from '../helpers/processes.js';
import { eventually } from '../helpers/waits.js';
import { sql } from 'kysely';
import { makeChannels, newPhone, startStandIns, type Channels, type StandIns } from './stand-ins.js';

const CHAINS = 12;

// Worker processes killed while failover chains move (docs/failover.md): on PostgreSQL two
// processes share the chains and one is SIGKILLed; on SQLite the one process is, and starts
// again. Every chain ends with each step started once and each step's message sent once.
for (const { dialect, skip, test } of await dialects()) {
  describe(`failover: a worker SIGKILLed between steps (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let stand: StandIns;
    let ch: Channels | undefined;
    const servers: ServerProcess[] = [];
    before(async () => {
      db = await createTestDatabase(dialect);
      stand = await startStandIns();
    });
    after(async () => {
      for (const s of servers) await s.kill('SIGKILL');
      await Promise.allSettled([stand?.close(), ...(ch?.hooks ?? []).map((h) => h.close())]);
      await db?.drop();
    });

    async function start(): Promise<{ server: ServerProcess; origin: string; env: Record<string, string> }> {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const env = baseEnv(db, { ...stand.env, PORT: String(port), PUBLIC_URL: `${origin}/v1`, ROLE: 'all', LOG_LEVEL: 'warn', WORKER_POLL_MS: '50' });
      const server = spawnServer(env);
      servers.push(server);
      await waitUntilReady(origin, server);
      return { server, origin, env };
    }

    test('no step is started or sent twice, and every chain ends', { timeout: 180_000 }, async () => {
      const port = await freePort();
      const firstEnv = baseEnv(db, { ...stand.env, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}/v1` });
      const { token } = await accountWithToken(firstEnv);
      const a = await start();
      const other = dialect === 'postgres' ? await start() : null;
      const api = new ApiClient(a.origin, token);
      const made = await makeChannels(api, stand);
      ch = made;

      // Each chain: rbm (never delivered) -> SMS after 1 s -> SMS again after 1 s more.
      const firsts: string[] = [];
      for (let i = 0; i < CHAINS; i++) {
        const phone = await newPhone(stand);
        const sent = await api.post('/v1/messages', {
          channel: { id: made.rbm.id },
          contact: { phone_number: phone },
          content: { type: 'text', payload: `chain ${i}` },
          fallbacks: [
            { channel: { id: made.sms.id }, when: 'not_delivered', within: 1 },
            { channel: { id: made.sms.id }, when: 'not_delivered', within: 1, content: { type: 'text', payload: `chain ${i}, again` } },
          ],
        });
        assert.equal(sent.status, 201, sent.text);
        firsts.push(sent.body.id as string);
      }
      const probe = await openStore(db.url);
      try {
        const started = async () =>
          Number(
            (
              await probe.db
                .selectFrom('failover_steps')
                .select((e) => e.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
        // Killed while chains are between their steps: some moved on, others not yet.
        await eventually(async () => ((await started()) > CHAINS + 2 ? true : undefined), 30_000, 'some chains moved on');
        await a.server.kill('SIGKILL');
        assert.equal((await a.server.exited).signal, 'SIGKILL');
        const live = other ?? (await start());

        const steps = await eventually(
          async () => {
            const chains = await probe.db.selectFrom('failovers').select(['id', 'state', 'step']).execute();
            if (chains.length !== CHAINS || chains.some((c) => c.state !== 'ended')) return undefined;
            const rows = await probe.db
              .selectFrom('failover_steps')
              .innerJoin('messages', 'messages.id', 'failover_steps.message_id')
              .select(['failover_steps.failover_id', 'failover_steps.step', 'messages.id', 'messages.status'])
              .execute();
            return rows.some((r) => r.status === 'queued') ? undefined : rows;
          },
          120_000,
          'every chain ended with its messages sent',
        ).catch(async (error: unknown) => {
          const chains = await probe.db.selectFrom('failovers').select(['id', 'state', 'step']).execute();
          const jobs = await probe.db.selectFrom('jobs').select(['message_id', 'kind', 'status', 'attempts', 'run_at', 'instance_id', 'last_error']).execute();
          const msgs = await probe.db.selectFrom('messages').select(['id', 'status']).execute();
          const leases = (
            await sql<{ objid: string; pid: number }>`select objid::text, pid from pg_locks where locktype = 'advisory' and granted`
              .execute(probe.db)
              .catch(() => ({ rows: [] }))
          ).rows;
          // In the error itself: what a test file prints may not reach the run's report.
          const state = `${JSON.stringify({ chains, jobs, msgs, leases, now: Date.now() })}\n${live.server.output().slice(-3000)}`;
          throw new Error(`${error instanceof Error ? error.message : String(error)}\n${state}`, { cause: error });
        });
        assert.equal(steps.length, CHAINS * 3, 'three steps per chain, each once');
        for (const first of firsts) {
          assert.deepEqual(
            steps
              .filter((r) => String(r.failover_id) === first)
              .map((r) => Number(r.step))
              .sort(),
            [0, 1, 2],
          );
        }
        const smsSteps = steps.filter((r) => Number(r.step) > 0).map((r) => String(r.id));
        const atProvider = ((await stand.sms('/messages')).body.messages as Array<{ reference: string | null }>).map((m) => String(m.reference));
        for (const id of smsSteps) assert.equal(atProvider.filter((r) => r === id).length, 1, `SMS ${id} sent once`);
        assert.equal(atProvider.length, smsSteps.length, 'nothing else was sent');
        // The chain as the API shows it, from a process that lives.
        const got = await new ApiClient(live.origin, token).get(`/v1/messages/${firsts[0]}`);
        assert.deepEqual(
          got.body.failover.steps.map((x: any) => x.moved_on),
          ['not_delivered', 'not_delivered', null],
        );
      } finally {
        await probe.close();
      }
    });
  });
}
