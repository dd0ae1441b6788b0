/**
 * The Parley side of the NLP benchmark: the whole service (API, webhook and jobs workers) on the
 * database in BENCH_DATABASE_URL, with a botmsg stand-in in this process (BOTMSG_API_URL points at
 * it; it is needed only to create the channels: the load posts updates to the service itself).
 * Makes an enterprise account and two botmsg channels whose webhooks point at BENCH_RECEIVER_URL
 * (127.0.0.1 only; paths /a and /b): channel A with a built-in NLP integration (bench/nlp/model.ts,
 * trained by the jobs worker before the ready line), channel B without. Prints one JSON line
 * {port, secretHeader, trainingMs, timeBudgetMs, channels: {a, b}}, each channel {id, inboundUrl, secretToken}
 * as the service registered them with the stand-in. On SIGTERM prints {nlpStats, integration,
 * memory} and exits. Everything else comes from the environment like `parley serve`.
 */
import { createServer } from 'node:net';
import { loadConfig, loadSettings } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { botmsgSettings } from '../../src/connectors/botmsg/config.js';
import { createBotmsgStandIn } from '../../sandbox/botmsg/server.js';
import { TRAINING } from './model.js';

const env = process.env;
const databaseUrl = env.BENCH_DATABASE_URL;
const dataDir = env.BENCH_DATA_DIR;
const receiverUrl = env.BENCH_RECEIVER_URL;
if (!databaseUrl || !dataDir || !receiverUrl) throw new Error('BENCH_DATABASE_URL, BENCH_DATA_DIR and BENCH_RECEIVER_URL are required');
if (new URL(receiverUrl).hostname !== '127.0.0.1') throw new Error('the benchmark only delivers to 127.0.0.1');
const TRAINING_TIMEOUT_MS = 120_000;

/** A free port, so that PUBLIC_URL (and the inbound URLs registered with the platform) name the real one. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const port = await freePort();
const serviceEnv = {
  ...env,
  DATABASE_URL: databaseUrl,
  DATA_DIR: dataDir,
  LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
  HOST: '127.0.0.1',
  PORT: String(port),
  PUBLIC_URL: `http://127.0.0.1:${port}/v1`,
  BOOTSTRAP_ACCOUNT: 'false',
  WEBHOOK_ALLOWLIST: '127.0.0.1',
  ROLE: 'all',
};
// The header the platform repeats the secret token in: the service's setting, which the stand-in must use too.
const { secretHeaderName } = loadSettings(loadConfig(serviceEnv), { botmsg: botmsgSettings }).botmsg;
const standIn = createBotmsgStandIn({ secretHeaderName });
const standInUrl = await standIn.listen(0, '127.0.0.1');

const config = loadConfig({ ...serviceEnv, BOTMSG_API_URL: standInUrl });
const runtime = await createRuntime(config);
const { accounts } = runtime.services;
const account = await accounts.createAccount({ name: 'bench', plan: 'enterprise', hourlyLimit: 1_000_000_000, concurrency: 10_000 });
const { accessToken } = await accounts.createToken(account.id);
await runtime.app.listen({ port, host: '127.0.0.1' });
runtime.startWorkers();

const origin = `http://127.0.0.1:${port}`;
async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text === '' ? null : JSON.parse(text);
}
const api = (method: string, path: string, body?: unknown) => call(method, `${origin}${path}`, body, { authorization: `Bearer ${accessToken}` });
const control = (method: string, path: string, body?: unknown) => call(method, `${standInUrl}/_sandbox${path}`, body);

/** A bot on the stand-in, connected as a botmsg channel; answers what the service registered for it. */
async function channel(name: string): Promise<{ id: string; inboundUrl: string; secretToken: string }> {
  const bot = await control('POST', '/bots', { username: `bench_${name}_bot`, first_name: `Bench ${name}` });
  const made = await api('POST', '/v1/channels', {
    type: 'botmsg',
    name: `bench ${name}`,
    webhook: { url: `${receiverUrl}/${name}` },
    botmsg: { access_token: bot.token },
  });
  const { webhook } = await control('GET', `/bots/${bot.bot.id}/webhook`);
  if (!webhook?.url || !webhook.secretToken) throw new Error(`the service registered no webhook for channel ${name}`);
  return { id: String(made.id), inboundUrl: String(webhook.url), secretToken: String(webhook.secretToken) };
}

const a = await channel('a');
const b = await channel('b');

const trainingStarted = performance.now();
await api('PUT', `/v1/channels/${a.id}/nlp`, TRAINING);
for (;;) {
  const view = await api('GET', `/v1/channels/${a.id}/nlp`);
  if (view.training.status === 'ready') break;
  if (view.training.status === 'failed') throw new Error(`training failed: ${view.training.error}`);
  if (performance.now() - trainingStarted > TRAINING_TIMEOUT_MS) throw new Error('the model was not trained in time');
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const trainingMs = Math.round(performance.now() - trainingStarted);

process.stdout.write(`${JSON.stringify({ port, secretHeader: secretHeaderName, trainingMs, timeBudgetMs: config.nlp.timeBudgetMs, channels: { a, b } })}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    // Read through the API, which adds this process's counts to the integration's row first.
    const integration = (await api('GET', `/v1/channels/${a.id}/nlp`)) as { stats: unknown; training: unknown };
    const nlpStats = runtime.nlpStats();
    const { rss, heapUsed } = process.memoryUsage();
    await runtime.close();
    await standIn.close();
    const mb = (n: number) => Math.round(n / 2 ** 20);
    process.stdout.write(
      `${JSON.stringify({ nlpStats, integration: { stats: integration.stats, training: integration.training }, memoryMb: { rss: mb(rss), heapUsed: mb(heapUsed) } })}\n`,
    );
    process.exit(0);
  })();
});
