/**
 * The Parley side of the webhook benchmark: the whole service (API and the delivery worker) on
 * the database in BENCH_DATABASE_URL. Makes an enterprise account and BENCH_CHANNELS test-mode
 * mobile channels whose webhooks point at BENCH_RECEIVER_URL (127.0.0.1 only), writes
 * BENCH_BACKLOG events through the outbox before the worker starts, then starts the worker and
 * prints one JSON line {port, token, channelIds}. On SIGTERM closes and prints {stats}.
 * With BENCH_FINISHED, that many finished deliveries are written after the backlog (copies of
 * its first row, bench/growth/finished.ts), for the drain part of the cost-growth benchmark, and
 * the worker starts BENCH_SETTLE_MS later.
 * Every other setting comes from the environment like `parley serve` (WEBHOOK_*, WORKER_POLL_MS).
 */
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { openStore } from '../../src/store/open.js';
import { seedFinishedDeliveries } from '../growth/finished.js';

const env = process.env;
const databaseUrl = env.BENCH_DATABASE_URL;
const dataDir = env.BENCH_DATA_DIR;
const receiverUrl = env.BENCH_RECEIVER_URL;
if (!databaseUrl || !dataDir || !receiverUrl) throw new Error('BENCH_DATABASE_URL, BENCH_DATA_DIR and BENCH_RECEIVER_URL are required');
if (new URL(receiverUrl).hostname !== '127.0.0.1') throw new Error('the benchmark only delivers to 127.0.0.1');

const config = loadConfig({
  ...env,
  DATABASE_URL: databaseUrl,
  DATA_DIR: dataDir,
  LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
  HOST: '127.0.0.1',
  PORT: '0',
  PUBLIC_URL: 'http://127.0.0.1/v1',
  BOOTSTRAP_ACCOUNT: 'false',
  WEBHOOK_ALLOWLIST: '127.0.0.1',
  ROLE: 'all',
});
const runtime = await createRuntime(config);
const { accounts, channels, outbox } = runtime.services;
const account = await accounts.createAccount({ name: 'bench', plan: 'enterprise', hourlyLimit: 1_000_000_000, concurrency: 10_000 });
const { accessToken } = await accounts.createToken(account.id);
const channelCount = Number(env.BENCH_CHANNELS ?? 1);
const made: Array<Awaited<ReturnType<typeof channels.create>>> = [];
for (let i = 0; i < channelCount; i++) {
  made.push(
    await channels.create(account.id, {
      type: 'mobile',
      name: `bench ${i}`,
      mode: 'test',
      provider: { type: 'smsprovider', sender_id: 'Parley', access_token: 'bench', signing_key: 'bench' },
      webhook: { url: `${receiverUrl}/c${i}` },
    }),
  );
}

const backlog = Number(env.BENCH_BACKLOG ?? 0);
for (let start = 0; start < backlog; start += 500) {
  await runtime.store.transaction(async (tx) => {
    for (let i = start; i < Math.min(start + 500, backlog); i++) {
      const channel = made[i % made.length]!;
      await outbox.append(tx, {
        type: 'message_echo',
        channel,
        contactId: null,
        data: { channel: { id: channel.id, type: 'mobile' }, n: i, content: { type: 'text', payload: 'benchmark' } },
      });
    }
  });
}

const finished = Number(env.BENCH_FINISHED ?? 0);
if (finished > 0) {
  const first = await runtime.store.db
    .selectFrom('deliveries')
    .select((eb) => eb.fn.min('id').as('id'))
    .executeTakeFirstOrThrow();
  await seedFinishedDeliveries(runtime.store, Number(first.id), finished, `${receiverUrl}/c0`);
  if (env.BENCH_SETTLE_MS) await new Promise((resolve) => setTimeout(resolve, Number(env.BENCH_SETTLE_MS)));
}

await runtime.app.listen({ port: 0, host: '127.0.0.1' });
const address = runtime.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
runtime.startWorkers();
process.stdout.write(`${JSON.stringify({ port, token: accessToken, channelIds: made.map((c) => c.id) })}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    await runtime.close();
    const worker = runtime.webhookStats();
    // Counted after the worker wrote back its last results.
    const store = await openStore(databaseUrl);
    const rows = await store.db
      .selectFrom('deliveries')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    await store.close();
    process.stdout.write(`${JSON.stringify({ deliveries: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])), worker })}\n`);
    process.exit(0);
  })();
});
