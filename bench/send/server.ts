/**
 * The Parley side of the Send Message benchmark: the whole service (auth, quota, group commit)
 * on the database in BENCH_DATABASE_URL, with an enterprise account whose quota cannot interfere
 * and a mobile channel in test mode. Prints one JSON line {port, token, channelId} when ready;
 * on SIGTERM closes (every accepted write committed) and prints {stored} (messages in the store).
 */
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { sendTarget } from '../shared/send-target.js';

const databaseUrl = process.env.BENCH_DATABASE_URL;
const dataDir = process.env.BENCH_DATA_DIR;
if (!databaseUrl || !dataDir) throw new Error('BENCH_DATABASE_URL and BENCH_DATA_DIR are required');

const config = loadConfig({
  DATABASE_URL: databaseUrl,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  HOST: '127.0.0.1',
  PORT: '0',
  PUBLIC_URL: 'http://127.0.0.1/v1',
  BOOTSTRAP_ACCOUNT: 'false',
});
const runtime = await createRuntime(config);
const { accessToken, channel } = await sendTarget(runtime);
await runtime.app.listen({ port: 0, host: '127.0.0.1' });
const address = runtime.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ port, token: accessToken, channelId: channel.id })}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    await runtime.app.close();
    const row = await runtime.store.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    process.stdout.write(`${JSON.stringify({ stored: Number(row.n) })}\n`);
    await runtime.close();
    process.exit(0);
  })();
});
