/**
 * The Parley side of the web chat fan-out benchmark: the service on BENCH_DATABASE_URL in this
 * process, API role only (a service_chat Send Message pushes inside the request; no worker is
 * needed). With BENCH_SETUP=1 it makes an enterprise account, its token and a service_chat channel
 * whose whitelist holds BENCH_PAGE; a second API process on the same PostgreSQL database starts
 * without it. Prints one JSON line {port, token?, channelId?}; on SIGTERM closes and prints {}.
 *
 * The chat limits per client address are raised: every session of the benchmark comes from
 * 127.0.0.1, and by default one address may hold 50 connections and start 20 sessions a minute.
 */
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';

const RAISED_CHAT_LIMITS = {
  CHAT_CONNECTIONS_PER_ADDRESS: '1000000',
  CHAT_SESSIONS_PER_ADDRESS_PER_MINUTE: '1000000',
  CHAT_SESSIONS_BURST: '1000000',
};

const env = process.env;
const databaseUrl = env.BENCH_DATABASE_URL;
const dataDir = env.BENCH_DATA_DIR;
if (!databaseUrl || !dataDir) throw new Error('BENCH_DATABASE_URL and BENCH_DATA_DIR are required');

const config = loadConfig({
  DATABASE_URL: databaseUrl,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  PORT: '0',
  PUBLIC_URL: 'http://127.0.0.1/v1',
  BOOTSTRAP_ACCOUNT: 'false',
  ROLE: 'api',
  ...RAISED_CHAT_LIMITS,
});
const runtime = await createRuntime(config);
let setup: { token: string; channelId: string } | Record<string, never> = {};
if (env.BENCH_SETUP === '1') {
  const { accounts, channels } = runtime.services;
  const account = await accounts.createAccount({ name: 'bench', plan: 'enterprise', hourlyLimit: 1_000_000_000, concurrency: 10_000 });
  const { accessToken } = await accounts.createToken(account.id);
  const channel = await channels.create(account.id, { type: 'service_chat', name: 'bench' });
  setup = { token: accessToken, channelId: channel.id };
}
await runtime.app.listen({ port: 0, host: '127.0.0.1' });
const address = runtime.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ port, ...setup })}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    await runtime.close();
    process.stdout.write('{}\n');
    process.exit(0);
  })();
});
