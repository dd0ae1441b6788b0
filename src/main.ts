import type { Config } from './config.js';
import { createRuntime, type Runtime } from './runtime.js';

/**
 * First start on an empty database: make an account and show its token once, so curl works at
 * once, and its first owner of the administration app with a one-time setup link.
 */
async function bootstrap(runtime: Runtime): Promise<void> {
  const { accounts, users } = runtime.services;
  if (!runtime.config.bootstrapAccount || (await accounts.countAccounts()) > 0) return;
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

/** Starts the service for the configured role and stops it cleanly on SIGTERM or SIGINT. */
export async function serve(config: Config): Promise<Runtime> {
  const runtime = await createRuntime(config);
  await bootstrap(runtime);
  runtime.startWorkers();
  if (config.role !== 'worker') {
    await runtime.app.listen({ port: config.port, host: config.host });
  }
  // The health checks and /metrics on an address of their own (a worker's only listener).
  const operations = runtime.operationsApp ? await runtime.operationsApp.listen({ port: config.operations.port ?? 0, host: config.operations.host }) : null;
  runtime.logger.info(
    { role: config.role, store: runtime.store.dialect, instance: runtime.store.instanceId, publicUrl: config.publicUrl, ...(operations ? { operations } : {}) },
    'parley started',
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    runtime.close().then(
      () => process.exit(0),
      (error: unknown) => {
        runtime.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return runtime;
}
