/**
 * The Parley side of the send-worker benchmark: the whole service (API, the webhook worker with
 * nothing to do, and one send worker) on the database in BENCH_DATABASE_URL, its mobile connector
 * pointed at the smsprovider stand-in in SMSPROVIDER_API_URL (127.0.0.1 only). Makes an
 * enterprise account and one production mobile channel with the stand-in's live key
 * (BENCH_SMS_KEY; the key is checked with the stand-in as on any create), writes BENCH_BACKLOG
 * messages through Send Message (each with its send job) before the worker starts, then starts
 * the worker and prints one JSON line {port, token, channelId, backlogMs}. On SIGTERM closes and
 * prints {messages, jobs} counted by status and the jobs runner's counters.
 *
 * The throttle is off for the run: the mobile type's rate (30 SMS/s per channel) is taken out of
 * its definition in this process before anything is queued, so every send job is written
 * without a rate, as for a type without one. Everything else comes from the environment like
 * `parley serve`. With BENCH_FINISHED, that many finished send jobs and their messages are written
 * after the backlog (copies of its first job, bench/growth/finished.ts), for the drain part of the
 * cost-growth benchmark, and the worker starts BENCH_SETTLE_MS later.
 */
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { openStore } from '../../src/store/open.js';
import { definitionOf } from '../../src/channel-types/index.js';
import { seedFinishedSends } from '../growth/finished.js';

const env = process.env;
const databaseUrl = env.BENCH_DATABASE_URL;
const dataDir = env.BENCH_DATA_DIR;
const smsUrl = env.SMSPROVIDER_API_URL;
const smsKey = env.BENCH_SMS_KEY;
if (!databaseUrl || !dataDir || !smsUrl || !smsKey) throw new Error('BENCH_DATABASE_URL, BENCH_DATA_DIR, SMSPROVIDER_API_URL and BENCH_SMS_KEY are required');
if (new URL(smsUrl).hostname !== '127.0.0.1') throw new Error('the benchmark only sends to 127.0.0.1');

if (env.BENCH_THROTTLE !== '1') delete (definitionOf('mobile').send as { ratePerSecond?: number }).ratePerSecond;

const config = loadConfig({
  ...env,
  DATABASE_URL: databaseUrl,
  DATA_DIR: dataDir,
  LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
  HOST: '127.0.0.1',
  PORT: '0',
  PUBLIC_URL: 'http://127.0.0.1/v1',
  BOOTSTRAP_ACCOUNT: 'false',
  ROLE: 'all',
});
const runtime = await createRuntime(config);
const { accounts, channels, messages } = runtime.services;
const account = await accounts.createAccount({ name: 'bench', plan: 'enterprise', hourlyLimit: 1_000_000_000, concurrency: 10_000 });
const { accessToken } = await accounts.createToken(account.id);
const channel = await channels.create(account.id, {
  type: 'mobile',
  name: 'bench',
  mode: 'production',
  provider: { type: 'smsprovider', sender_id: 'Parley', access_token: smsKey, signing_key: env.BENCH_SMS_SIGNING_KEY ?? 'bench-signing-key' },
});

/** 1000 contacts: the first messages make them, the rest find them. */
const CONTACTS = 1000;
const phoneOf = (n: number) => `+42060${String(1_000_000 + (n % CONTACTS))}`;

// The backlog goes through Send Message itself (rows exactly as production writes them), a few
// hundred at a time so that group commit batches them as it does under load.
const backlog = Number(env.BENCH_BACKLOG ?? 0);
const backlogStarted = performance.now();
for (let start = 0; start < backlog; start += 500) {
  const batch: Array<Promise<unknown>> = [];
  for (let i = start; i < Math.min(start + 500, backlog); i++) {
    batch.push(
      messages.send(account.id, {
        channel: { id: channel.id },
        contact: { phone_number: phoneOf(i) },
        content: { type: 'text', payload: `Your code is ${String(100_000 + i)}.` },
      } as Parameters<typeof messages.send>[1]),
    );
  }
  await Promise.all(batch);
}
const backlogMs = Math.round(performance.now() - backlogStarted);

const finished = Number(env.BENCH_FINISHED ?? 0);
if (finished > 0) {
  const first = await runtime.store.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.min('id').as('id'))
    .executeTakeFirstOrThrow();
  await seedFinishedSends(runtime.store, Number(first.id), finished);
  if (env.BENCH_SETTLE_MS) await new Promise((resolve) => setTimeout(resolve, Number(env.BENCH_SETTLE_MS)));
}

await runtime.app.listen({ port: 0, host: '127.0.0.1' });
const address = runtime.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
runtime.startWorkers();
process.stdout.write(`${JSON.stringify({ port, token: accessToken, channelId: channel.id, backlogMs })}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    // The jobs runner's claims: how many, how many jobs they brought, and the time they took.
    const runner = runtime.jobStats();
    await runtime.close();
    // Counted after the worker wrote back its last results.
    const store = await openStore(databaseUrl);
    const count = async (table: 'messages' | 'jobs') =>
      Object.fromEntries(
        (
          await store.db
            .selectFrom(table)
            .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
            .groupBy('status')
            .execute()
        ).map((r) => [r.status, Number(r.n)]),
      );
    const result = { messages: await count('messages'), jobs: await count('jobs'), runner };
    await store.close();
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  })();
});
