import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadConfig, ConfigError, type Config } from './config.js';
import { openStore } from './store/open.js';
import { AccountService } from './domain/accounts/service.js';
import { IdGenerator } from './lib/ids.js';
import { systemClock } from './lib/clock.js';
import { isPlan, PLAN_NAMES } from './domain/accounts/plans.js';
import { serve } from './main.js';

const USAGE = `parley <command>

  serve                                   start the API (and workers, by ROLE)
  migrate                                 create or update the database schema
  account create --name N --plan free|developer|enterprise [--hourly-limit N] [--concurrency N]
  account list
  token create --account ID               print a new access token (shown only now)
  token revoke --token T | --id ID        revoke a token

Configuration is read from environment variables; see docs/configuration.md.`;

class UsageError extends Error {}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`--${name} must be a positive whole number`);
  return Number(value);
}

/** Account and token commands work on the store directly; no server needs to run. */
async function withAccounts<T>(config: Config, work: (accounts: AccountService) => Promise<T>): Promise<T> {
  const store = await openStore(config.databaseUrl);
  try {
    await store.migrate();
    const accounts = new AccountService({ store, ids: new IdGenerator(store.instanceId), clock: systemClock, authCacheMs: 0 });
    return await work(accounts);
  } finally {
    await store.close();
  }
}

export async function runCli(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve':
      await serve(config);
      return -1; // keeps running
    case 'migrate': {
      const store = await openStore(config.databaseUrl);
      try {
        print({ applied: await store.migrate(), dialect: store.dialect });
      } finally {
        await store.close();
      }
      return 0;
    }
    case 'account': {
      const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, plan: { type: 'string' }, 'hourly-limit': { type: 'string' }, concurrency: { type: 'string' } } });
      if (sub === 'list') {
        const list = await withAccounts(config, (accounts) => accounts.listAccounts());
        print(list.map((a) => ({ id: String(a.id), name: a.name, plan: a.plan, hourly_limit: a.hourlyLimit, concurrency: a.concurrency })));
        return 0;
      }
      if (sub !== 'create') throw new UsageError('account create | account list');
      if (!values.name) throw new UsageError('--name is required');
      if (!isPlan(values.plan)) throw new UsageError(`--plan must be one of: ${PLAN_NAMES.join(', ')}`);
      const plan = values.plan;
      const hourlyLimit = positiveInt('hourly-limit', values['hourly-limit']);
      const concurrency = positiveInt('concurrency', values.concurrency);
      const account = await withAccounts(config, (accounts) => accounts.createAccount({ name: values.name as string, plan, hourlyLimit, concurrency }));
      print({ id: String(account.id), name: account.name, plan: account.plan, hourly_limit: account.hourlyLimit, concurrency: account.concurrency });
      return 0;
    }
    case 'token': {
      const { values } = parseArgs({ args: rest, options: { account: { type: 'string' }, token: { type: 'string' }, id: { type: 'string' } } });
      if (sub === 'create') {
        if (!values.account || !/^[0-9]+$/.test(values.account)) throw new UsageError('--account ID is required');
        const accountId = Number(values.account);
        const made = await withAccounts(config, async (accounts) => {
          if (!(await accounts.getAccount(accountId))) throw new UsageError(`no account ${values.account}`);
          return accounts.createToken(accountId);
        });
        print({ id: made.id, account_id: values.account, access_token: made.accessToken });
        return 0;
      }
      if (sub === 'revoke') {
        const target = values.token ?? values.id;
        if (!target) throw new UsageError('--token T or --id ID is required');
        const revoked = await withAccounts(config, (accounts) => accounts.revokeToken(target));
        print({ revoked });
        return revoked ? 0 : 1;
      }
      throw new UsageError('token create | token revoke');
    }
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

/** Runs one command and sets the exit code; errors become a one-line message (usage errors add the usage). */
export async function main(argv: string[]): Promise<void> {
  try {
    const code = await runCli(argv);
    if (code >= 0) process.exitCode = code;
  } catch (error) {
    if (error instanceof UsageError) process.stderr.write(`parley: ${error.message}\n\n${USAGE}\n`);
    else if (error instanceof ConfigError) process.stderr.write(`parley: ${error.message}\n`);
    else process.stderr.write(`parley: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) void main(process.argv.slice(2));
