import { loadConfig } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';

export interface SendTargetOptions {
  /**
   * The channel has a webhook, so each send also writes its `message_echo` event and the event's
   * delivery. Its receiver is never called: the benchmarks' servers run no webhook worker.
   */
  webhook?: boolean;
}

/**
 * What the Send Message load sends to: an enterprise account whose quota and concurrency never
 * limit the run, its token, and a mobile channel in test mode (stored and reported, never handed
 * to a provider). Shared by the benchmarks that load Send Message.
 */
export async function sendTarget(runtime: Runtime, options: SendTargetOptions = {}) {
  const { accounts, channels } = runtime.services;
  const account = await accounts.createAccount({ name: 'bench', plan: 'enterprise', hourlyLimit: 1_000_000_000, concurrency: 10_000 });
  const { accessToken } = await accounts.createToken(account.id);
  const channel = await channels.create(account.id, {
    type: 'mobile',
    name: 'bench',
    mode: 'test',
    provider: { type: 'smsprovider', sender_id: 'Parley', access_token: 'bench', signing_key: 'bench' },
    ...(options.webhook ? { webhook: { url: 'https://receiver.example/parley-events' } } : {}),
  });
  return { account, accessToken, channel };
}

/**
 * The service of a Send Message benchmark in this process: the whole runtime on
 * BENCH_DATABASE_URL and BENCH_DATA_DIR, logging off, no first account, with `settings` on top,
 * and its send target (`options`).
 */
export async function startSendTarget(settings: Record<string, string> = {}, options: SendTargetOptions = {}) {
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
    ...settings,
  });
  const runtime = await createRuntime(config);
  return { runtime, ...(await sendTarget(runtime, options)) };
}
