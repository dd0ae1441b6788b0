import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { dialects, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import type { Channel } from '../../src/domain/channels/view.js';
import { Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/waits.js';
import { baseEnv, spawnServer, type ServerProcess } from '../helpers/processes.js';

const EVENTS = 3000;
const CHANNELS = 3;

for (const { dialect, skip } of await dialects()) {
  const reason = dialect === 'sqlite' ? 'several worker processes need PostgreSQL (SQLite runs one in-process worker)' : skip;
  describe(`Two worker processes share the queue (${dialect})`, { skip: reason }, () => {
    let db: TestDatabase;
    let runtime: Runtime;
    let receiver: Receiver;
    const workers: ServerProcess[] = [];
    before(async () => {
      db = await createTestDatabase(dialect);
      receiver = await Receiver.start();
      // This process writes the events (role api: no worker of its own).
      runtime = await createRuntime(
        loadConfig({
          DATABASE_URL: db.url,
          DATA_DIR: db.dataDir,
          LOG_LEVEL: 'silent',
          ROLE: 'api',
          WEBHOOK_ALLOWLIST: '127.0.0.1',
          BOOTSTRAP_ACCOUNT: 'false',
        }),
      );
    });
    after(async () => {
      for (const w of workers) await w.kill('SIGKILL');
      await runtime?.close();
      await receiver?.close();
      await db?.drop();
    });

    test(`${EVENTS} events are each delivered exactly once, and both workers deliver, woken by the API process`, { timeout: 180_000 }, async () => {
      const { services, store } = runtime;
      const account = await services.accounts.createAccount({ name: 'scale', plan: 'enterprise' });
      const channels: Channel[] = [];
      for (let i = 0; i < CHANNELS; i++) {
        channels.push(await services.channels.create(account.id, { type: 'service_chat', name: `c${i}`, webhook: { url: receiver.url(`/c${i}`) } }));
      }
      // Polling is all but off: the workers learn of new events only from the API process's NOTIFY.
      // A worker listens on no API port: the public address is its setting (start-up refuses it
      // unset); its health and metrics listener takes any free port.
      const env = baseEnv(db, { ROLE: 'worker', WORKER_POLL_MS: '600000', PUBLIC_URL: 'http://127.0.0.1:1/v1', METRICS_PORT: '0' });
      workers.push(spawnServer(env), spawnServer(env));
      await Promise.all(workers.map((w) => w.waitForLine(/parley started/)));

      const expected = new Set<string>();
      for (let start = 0; start < EVENTS; start += 100) {
        const ids = await store.transaction(async (tx) => {
          const out: string[] = [];
          for (let i = start; i < start + 100; i++) {
            const channel = channels[i % CHANNELS]!;
            out.push((await services.outbox.append(tx, { type: 'message_echo', channel, contactId: null, data: { channel: { id: channel.id }, i } })).eventId!);
          }
          return out;
        });
        for (const id of ids) expected.add(id);
        services.outbox.wake();
      }

      await receiver.waitFor((calls) => new Set(calls.map((c) => String(c.headers['x-parley-event-id']))).size >= EVENTS, 150_000);
      // A call is recorded after its answer: wait until the workers have recorded every one.
      await eventually(
        async () => {
          const row = await store.db
            .selectFrom('deliveries')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('status', '=', 'delivered')
            .executeTakeFirstOrThrow();
          return Number(row.n) === EVENTS ? true : undefined;
        },
        30_000,
        'every delivery recorded as delivered',
      );
      // A graceful stop waits for calls in flight, so a late duplicate would be counted below.
      for (const w of workers) await w.kill('SIGTERM');
      for (const w of workers) assert.equal((await w.exited).code, 0, 'a worker stops cleanly on SIGTERM');
      assert.deepEqual(new Set(receiver.eventIds()), expected, 'every event arrived');
      assert.equal(receiver.calls.length, EVENTS, 'none arrived twice');

      const statuses = await store.db
        .selectFrom('deliveries')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status')
        .execute();
      assert.deepEqual(
        statuses.map((r) => [r.status, Number(r.n)]),
        [['delivered', EVENTS]],
      );
      const tries = await store.db
        .selectFrom('delivery_attempts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(tries.n), EVENTS, 'one try per delivery');
      const byWorker = await sql<{ locked_by: number; n: number }>`select locked_by, count(*)::int as n from deliveries group by locked_by`.execute(store.db);
      assert.equal(byWorker.rows.length, 2, `both workers claimed deliveries: ${JSON.stringify(byWorker.rows)}`);
      for (const row of byWorker.rows) assert.ok(row.n > 0 && row.locked_by !== store.instanceId);
    });
  });
}
