import { Server as NetServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { Config } from './config.js';
import { createRuntime, type Runtime } from './runtime.js';
import { SecretBox } from './lib/crypto.js';
import { checkPublicUrl } from './startup/public-url.js';
import { checkEncryptionKey } from './startup/encryption-check.js';
import { checkFilesDir } from './startup/files-marker.js';
import { listen } from './startup/listen.js';

/**
 * First start on an empty database: make an account and show its token once, so curl works at
 * once, and its first owner of the administration app with a one-time setup link. Several
 * processes starting at once on an empty PostgreSQL database make one: the check and the making
 * run alone (an advisory lock); a process that finds the lock taken leaves it to its holder.
 */
async function bootstrap(runtime: Runtime): Promise<void> {
  if (!runtime.config.bootstrapAccount) return;
  await runtime.store.runAlone('bootstrap', () => makeFirstAccount(runtime));
}

async function makeFirstAccount(runtime: Runtime): Promise<void> {
  const { accounts, users } = runtime.services;
  if ((await accounts.countAccounts()) > 0) return;
  const account = await accounts.createAccount({ name: 'First account', plan: 'developer' });
  const token = await accounts.createToken(account.id);
  const owner = await users.createUser({ accountId: account.id, email: runtime.config.admin.email, role: 'owner' });
  const base = runtime.config.publicUrl;
  process.stdout.write(
    [
      '',
      'Parley created a first account (plan: developer). Its API token is shown only this once:',
      '',
      `  ${token.accessToken}`,
      '',
      'Try it:',
      `  curl -H "Authorization: Bearer ${token.accessToken}" ${base}/channels`,
      '',
      `API reference: ${base}/docs`,
      '',
      `Administration app: sign in as ${owner.user.email} after choosing a password with this one-time link (valid 24 hours):`,
      '',
      `  ${owner.setupLink ?? ''}`,
      '',
      'A new link: parley user reset-password --id ' + String(owner.user.id),
      '',
    ].join('\n'),
  );
}

/** After the drain, how long connections already open may still bring a request before the idle ones are closed. */
const LAST_REQUESTS_MS = 1_000;

/**
 * The drain of SHUTDOWN_DRAIN_SECONDS: the process answers on, unready, keeping its connections
 * alive, so a proxy goes on using the ones it holds instead of opening new ones. Then it stops
 * accepting connections (a proxy's new ones are refused, which it sends to another instance), and
 * the connections still open get a moment in which each answer closes its connection; close()
 * then ends the idle ones, which a proxy that has seen the refusals no longer uses.
 */
async function drain(runtime: Runtime, drainMs: number): Promise<void> {
  if (drainMs <= 0) return;
  await delay(drainMs);
  // The listening socket alone: http.Server.close() would also end the idle connections at once.
  NetServer.prototype.close.call(runtime.app.server);
  runtime.logger.info('stopped accepting connections');
  await delay(LAST_REQUESTS_MS);
}

/**
 * Starts the service for the configured role and stops it cleanly on SIGTERM or SIGINT. Every
 * configuration error stops the start with a ConfigError naming the setting before anything is
 * created: PUBLIC_URL before the store is opened; the key and the files folder before listening
 * (read only); the address by listening; only then are the checks recorded, the first account
 * made and the workers started.
 */
export async function serve(config: Config): Promise<Runtime> {
  checkPublicUrl(config);
  const runtime = await createRuntime(config);
  const { store } = runtime;
  let started = false;
  let operations: string | null = null;
  const start = (async () => {
    const key = await checkEncryptionKey(store, SecretBox.fromBase64(config.encryptionKey), config);
    const files = await checkFilesDir(store, config);
    if (config.role !== 'worker') {
      // Listening comes before the first account (a taken port must leave nothing behind), so the
      // requests of those few moments wait for the start: /readyz answers once it is complete.
      runtime.app.addHook('onRequest', (_request, _reply, done) => {
        if (started) done();
        else start.then(() => done(), done);
      });
      await listen(runtime.app, config);
    }
    // The health checks and /metrics on an address of their own (a worker's only listener).
    if (runtime.operationsApp) {
      const { port, host } = config.operations;
      const names = port === config.port && config.role === 'worker' ? { port: 'PORT', host: 'HOST' } : { port: 'METRICS_PORT', host: 'METRICS_HOST' };
      operations = await listen(runtime.operationsApp, { port: port ?? 0, host }, names);
    }
    const now = runtime.clock.now();
    await key.record(now);
    await files.record(now);
    await bootstrap(runtime);
    runtime.startWorkers();
    started = true;
  })();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    // The drain (SHUTDOWN_DRAIN_SECONDS, at most 10, and a second) is part of these 15 seconds.
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    const drainMs = config.role === 'worker' ? 0 : config.shutdownDrainMs;
    runtime.logger.info({ signal, drainMs }, 'shutting down');
    // Not ready from now on; the listener closes after the drain.
    runtime.beginShutdown();
    // A signal during the start lets it finish (the first account's token is printed whole); a start that failed ends the process itself.
    start.then(
      () =>
        drain(runtime, drainMs)
          .then(() => runtime.close())
          .then(
            () => process.exit(0),
            (error: unknown) => {
              runtime.logger.error({ err: error }, 'shutdown failed');
              process.exit(1);
            },
          ),
      () => undefined,
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  try {
    await start;
  } catch (error) {
    await runtime.close();
    throw error;
  }
  runtime.logger.info(
    { role: config.role, store: store.dialect, instance: store.instanceId, publicUrl: config.publicUrl, ...(operations ? { operations } : {}) },
    'parley started',
  );
  return runtime;
}
