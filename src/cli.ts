import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadConfig, newEncryptionKey, ConfigError, type Config } from './config.js';
import { openStore } from './store/open.js';
import type { Account } from './domain/accounts/service.js';
import { isPlan, PLAN_NAMES, type Plan } from './domain/accounts/plans.js';
import { serve } from './main.js';
import { isRole, ROLES, userJson } from './domain/users/views.js';
import { ApiError } from './lib/errors.js';
import { openAccountServices, type AccountServices } from './wiring/accounts.js';
import { BACKUP_USAGE, runBackupCommand } from './backup/commands.js';

const USAGE = `parley <command>

  serve                                   start the API (and workers, by ROLE)
  migrate                                 create or update the database schema
  key                                     print a new ENCRYPTION_KEY (32 random bytes, base64)
  account create --name N --plan free|developer|enterprise [--hourly-limit N] [--concurrency N]
  account list
  account update --account ID [--name N] [--plan P] [--hourly-limit N|default] [--concurrency N|default]
  account delete --account ID --yes       delete the account, its tokens, channels and all their data
                                          (without --yes: print what would go, change nothing)
  token create --account ID               print a new access token (shown only now)
  token list --account ID                 the account's tokens: id, prefix, created, last used, revoked
  token revoke --token T | --id ID        revoke a token
  user create --account ID --email E --role owner|member [--password P]
                                          add a user of the administration app; without --password
                                          print a one-time setup link (valid 24 hours), else the
                                          user must change the password at first sign-in
  user list --account ID                  the account's users
  user remove --id ID                     remove a user (not an account's last owner)
  user reset-password --id ID             print a new one-time setup link; the old password and
                                          the user's sessions end
${BACKUP_USAGE}

Configuration is read from environment variables; see docs/configuration.md.`;

class UsageError extends Error {}
/** The command was understood but could not be done (no such account or token): exit code 1. */
class Refusal extends Error {}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`--${name} must be a positive whole number`);
  return Number(value);
}

/** A custom limit, or `default` (null) for the plan's own value. */
function limit(name: string, value: string | undefined): number | null | undefined {
  return value === 'default' ? null : positiveInt(name, value);
}

function accountIdOf(value: string | undefined): number {
  if (!value || !/^[0-9]{1,16}$/.test(value)) throw new UsageError('--account ID is required');
  return Number(value);
}

function accountJson(a: Account): Record<string, unknown> {
  return { id: String(a.id), name: a.name, plan: a.plan, hourly_limit: a.hourlyLimit, concurrency: a.concurrency };
}

/**
 * Account, token and user commands work on the store directly; no server needs to run. Their
 * services come from the server's own wiring (wiring/accounts.ts): users' setup links point at
 * PUBLIC_URL's origin, deleted accounts' files are removed, as in the server.
 */
async function withAccounts<T>(config: Config, work: (services: AccountServices) => Promise<T>): Promise<T> {
  const services = await openAccountServices(config);
  try {
    return await work(services);
  } finally {
    await services.store.close();
  }
}

/** The user commands: the domain's refusals (a taken e-mail, the last owner) are the operator's to fix, exit 1 with the reason. */
async function withUsers<T>(config: Config, work: (services: AccountServices) => Promise<T>): Promise<T> {
  return withAccounts(config, async (services) => {
    try {
      return await work(services);
    } catch (error) {
      if (error instanceof ApiError) throw new Refusal(error.message);
      throw error;
    }
  });
}

function userIdOf(value: string | undefined): number {
  if (!value || !/^[0-9]{1,16}$/.test(value)) throw new UsageError('--id ID is required');
  return Number(value);
}

export async function runCli(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  // Before loadConfig: a restore must not have a key file made for it (backup/commands.ts).
  if (command === 'backup' || command === 'restore') return runBackupCommand(command, argv.slice(1), USAGE);
  // A new key needs no configuration (and must not make the data folder's key file).
  if (command === 'key') {
    process.stdout.write(`${newEncryptionKey()}\n`);
    return 0;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve':
      await serve(config);
      return -1; // keeps running
    case 'migrate': {
      const store = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
      try {
        print({ applied: await store.migrate(), dialect: store.dialect });
      } finally {
        await store.close();
      }
      return 0;
    }
    case 'account': {
      const { values } = parseArgs({
        args: rest,
        options: {
          account: { type: 'string' },
          name: { type: 'string' },
          plan: { type: 'string' },
          'hourly-limit': { type: 'string' },
          concurrency: { type: 'string' },
          yes: { type: 'boolean' },
        },
      });
      if (sub === 'list') {
        const list = await withAccounts(config, ({ accounts }) => accounts.listAccounts());
        print(list.map(accountJson));
        return 0;
      }
      if (sub === 'update') {
        const id = accountIdOf(values.account);
        if (values.plan !== undefined && !isPlan(values.plan)) throw new UsageError(`--plan must be one of: ${PLAN_NAMES.join(', ')}`);
        if (values.name === '') throw new UsageError('--name must not be empty');
        const changes = {
          name: values.name,
          plan: values.plan as Plan | undefined,
          hourlyLimit: limit('hourly-limit', values['hourly-limit']),
          concurrency: limit('concurrency', values.concurrency),
        };
        if (Object.values(changes).every((v) => v === undefined)) throw new UsageError('account update needs --name, --plan, --hourly-limit or --concurrency');
        const account = await withAccounts(config, ({ accounts }) => accounts.updateAccount(id, changes));
        if (!account) throw new Refusal(`no account ${id}`);
        print(accountJson(account));
        return 0;
      }
      if (sub === 'delete') {
        const id = accountIdOf(values.account);
        return withAccounts(config, async ({ accounts }) => {
          const account = await accounts.findAccount(id);
          if (!account) throw new Refusal(`no account ${id}`);
          if (!values.yes) {
            // Irreversible and wide: without --yes only say what would go.
            print({ account: accountJson(account), would_delete: await accounts.accountUsage(id) });
            throw new Refusal(`nothing was deleted: account delete removes the account with everything listed; add --yes to do it`);
          }
          const deleted = await accounts.deleteAccount(id);
          if (!deleted) throw new Refusal(`no account ${id}`);
          print({ account: accountJson(account), deleted });
          return 0;
        });
      }
      if (sub !== 'create') throw new UsageError('account create | list | update | delete');
      if (!values.name) throw new UsageError('--name is required');
      if (!isPlan(values.plan)) throw new UsageError(`--plan must be one of: ${PLAN_NAMES.join(', ')}`);
      const plan = values.plan;
      const hourlyLimit = positiveInt('hourly-limit', values['hourly-limit']);
      const concurrency = positiveInt('concurrency', values.concurrency);
      const account = await withAccounts(config, ({ accounts }) => accounts.createAccount({ name: values.name as string, plan, hourlyLimit, concurrency }));
      print(accountJson(account));
      return 0;
    }
    case 'token': {
      const { values } = parseArgs({ args: rest, options: { account: { type: 'string' }, token: { type: 'string' }, id: { type: 'string' } } });
      if (sub === 'create' || sub === 'list') {
        const accountId = accountIdOf(values.account);
        return withAccounts(config, async ({ accounts }) => {
          if (!(await accounts.findAccount(accountId))) throw new Refusal(`no account ${accountId}`);
          if (sub === 'list') {
            print(await accounts.listTokens(accountId));
          } else {
            const made = await accounts.createToken(accountId);
            print({ id: made.id, account_id: String(accountId), prefix: made.prefix, access_token: made.accessToken });
          }
          return 0;
        });
      }
      if (sub === 'revoke') {
        if ((values.token === undefined) === (values.id === undefined)) throw new UsageError('token revoke needs --token T or --id ID (one of them)');
        if (values.id !== undefined && !/^[0-9]{1,16}$/.test(values.id)) throw new UsageError('--id must be a token id (digits)');
        const named = values.id !== undefined ? `token ${values.id}` : 'that token';
        const outcome = await withAccounts(config, ({ accounts }) =>
          values.id !== undefined ? accounts.revokeTokenById(Number(values.id)) : accounts.revokeTokenByValue(values.token as string),
        );
        if (outcome === 'unknown') throw new Refusal(`no such token: ${named} does not exist`);
        if (outcome === 'already_revoked') throw new Refusal(`${named} was revoked already`);
        print({ revoked: true });
        return 0;
      }
      throw new UsageError('token create | list | revoke');
    }
    case 'user': {
      const { values } = parseArgs({
        args: rest,
        options: { account: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, password: { type: 'string' }, id: { type: 'string' } },
      });
      if (sub === 'create') {
        const accountId = accountIdOf(values.account);
        if (!values.email) throw new UsageError('--email is required');
        if (!isRole(values.role)) throw new UsageError(`--role must be one of: ${ROLES.join(', ')}`);
        const role = values.role;
        const made = await withUsers(config, async ({ users, accounts }) => {
          if (!(await accounts.findAccount(accountId))) throw new Refusal(`no account ${accountId}`);
          return users.createUser({ accountId, email: values.email as string, role, password: values.password });
        });
        print({ ...userJson(made.user), account_id: String(accountId), ...(made.setupLink ? { setup_link: made.setupLink } : {}) });
        return 0;
      }
      if (sub === 'list') {
        const accountId = accountIdOf(values.account);
        const list = await withUsers(config, async ({ users, accounts }) => {
          if (!(await accounts.findAccount(accountId))) throw new Refusal(`no account ${accountId}`);
          return users.listUsers(accountId);
        });
        print(list.map(userJson));
        return 0;
      }
      if (sub === 'remove') {
        const id = userIdOf(values.id);
        await withUsers(config, async ({ users }) => {
          const user = await users.findUser(id);
          if (!user) throw new Refusal(`no user ${id}`);
          await users.removeUser(user.accountId, id, null);
        });
        print({ removed: true });
        return 0;
      }
      if (sub === 'reset-password') {
        const id = userIdOf(values.id);
        const link = await withUsers(config, async ({ users }) => {
          if (!(await users.findUser(id))) throw new Refusal(`no user ${id}`);
          return users.resetPassword(id);
        });
        print({ id: String(id), setup_link: link });
        return 0;
      }
      throw new UsageError('user create | list | remove | reset-password');
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
    else if (error instanceof ConfigError || error instanceof Refusal) process.stderr.write(`parley: ${error.message}\n`);
    else process.stderr.write(`parley: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = error instanceof Refusal ? 1 : 2;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) void main(process.argv.slice(2));
