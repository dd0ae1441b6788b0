import { after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { cli, cliRaw, startServerProcess } from '../helpers/processes.js';
import { freePort } from '../helpers/runtime.js';
import { AdminClient } from './auth-client.js';

const PASSWORD = 'correct horse battery';

function tokenOf(link: string): string {
  return new URL(link).searchParams.get('token') ?? '';
}

for (const { dialect, skip, test } of await dialects()) {
  describe(`CLI user commands and the first owner (${dialect})`, { skip }, () => {
    const dbs: TestDatabase[] = [];
    after(async () => {
      for (const db of dbs) await db.drop();
    });
    const freshEnv = async (extra: Record<string, string> = {}) => {
      const db = await createTestDatabase(dialect);
      dbs.push(db);
      return { DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD_COST: '10', BOOTSTRAP_ACCOUNT: 'false', ...extra };
    };

    test('user create, list, reset-password and remove; the setup links work once', async () => {
      const port = await freePort();
      const env = await freshEnv({ PUBLIC_URL: `http://127.0.0.1:${port}/v1` });
      const account = await cli(['account', 'create', '--name', 'Acme', '--plan', 'free'], env);

      const owner = await cli(['user', 'create', '--account', account.id, '--email', 'Owner@Acme.test', '--role', 'owner'], env);
      assert.equal(owner.email, 'Owner@Acme.test');
      assert.equal(owner.role, 'owner');
      assert.equal(owner.account_id, account.id);
      assert.equal(owner.must_change_password, false);
      assert.match(owner.setup_link, new RegExp(`^http://127\\.0\\.0\\.1:${port}/admin/setup\\?token=[A-Za-z0-9_-]{43}$`));
      const member = await cli(['user', 'create', '--account', account.id, '--email', 'member@acme.test', '--role', 'member', '--password', PASSWORD], env);
      assert.equal(member.must_change_password, true, 'a password chosen by the operator must be changed');
      assert.equal(member.setup_link, undefined);

      const listed = await cli(['user', 'list', '--account', account.id], env);
      assert.deepEqual(
        listed.map((u: { email: string; role: string }) => [u.email, u.role]),
        [
          ['Owner@Acme.test', 'owner'],
          ['member@acme.test', 'member'],
        ],
      );

      const server = await startServerProcess({ ...env, ADMIN_PASSWORD_COST: '10' }, port);
      try {
        const browser = new AdminClient(server.origin);
        const setUp = await browser.post('/admin/api/setup', { token: tokenOf(owner.setup_link), password: PASSWORD });
        assert.equal(setUp.status, 200, setUp.text);
        assert.equal(setUp.body.account.id, account.id);
        assert.equal((await new AdminClient(server.origin).signIn('member@acme.test', PASSWORD)).status, 200);

        const reset = await cli(['user', 'reset-password', '--id', owner.id], env);
        assert.equal(reset.id, owner.id);
        assert.notEqual(tokenOf(reset.setup_link), tokenOf(owner.setup_link));
        assert.equal((await browser.get('/admin/api/session')).status, 401, 'the reset ended the session');
        assert.equal((await new AdminClient(server.origin).signIn('owner@acme.test', PASSWORD)).status, 401, 'the old password is gone');
        const next = new AdminClient(server.origin);
        assert.equal((await next.post('/admin/api/setup', { token: tokenOf(reset.setup_link), password: 'a new long password' })).status, 200);
        assert.equal((await next.post('/admin/api/setup', { token: tokenOf(reset.setup_link), password: 'a new long password' })).status, 422, 'once');
      } finally {
        await server.stop();
      }

      const last = await cliRaw(['user', 'remove', '--id', owner.id], env);
      assert.equal(last.code, 1);
      assert.match(last.stderr, /last owner/);
      assert.deepEqual(await cli(['user', 'remove', '--id', member.id], env), { removed: true });
      assert.deepEqual(
        (await cli(['user', 'list', '--account', account.id], env)).map((u: { id: string }) => u.id),
        [owner.id],
      );
      const again = await cliRaw(['user', 'remove', '--id', member.id], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, new RegExp(`no user ${member.id}`));
    });

    test('user commands refuse bad input with a message', async () => {
      const env = await freshEnv();
      const account = await cli(['account', 'create', '--name', 'Acme', '--plan', 'free'], env);
      await cli(['user', 'create', '--account', account.id, '--email', 'taken@acme.test', '--role', 'member'], env);
      const cases: Array<[string[], number, RegExp]> = [
        [['user', 'create', '--account', account.id, '--email', 'TAKEN@acme.test', '--role', 'member'], 1, /exists already/],
        [['user', 'create', '--account', account.id, '--email', 'x@acme.test', '--role', 'admin'], 2, /--role must be one of: owner, member/],
        [['user', 'create', '--account', account.id, '--email', 'not-an-address', '--role', 'member'], 1, /e-mail address is not valid/],
        [['user', 'create', '--account', account.id, '--email', 'short@acme.test', '--role', 'member', '--password', 'short'], 1, /at least 12 characters/],
        [['user', 'create', '--account', '999', '--email', 'y@acme.test', '--role', 'member'], 1, /no account 999/],
        [['user', 'list'], 2, /--account ID is required/],
        [['user', 'reset-password', '--id', '12345'], 1, /no user 12345/],
        [['user', 'rename'], 2, /user create \| list \| remove \| reset-password/],
      ];
      for (const [args, code, message] of cases) {
        const res = await cliRaw(args, env);
        assert.equal(res.code, code, `${args.join(' ')}: ${res.stderr}`);
        assert.match(res.stderr, message, args.join(' '));
      }
      const help = await cliRaw(['help'], env);
      assert.match(help.stdout, /user reset-password --id ID/);
    });

    test('the first start prints the first owner and a one-time setup link that signs in', async () => {
      const env = await freshEnv({ BOOTSTRAP_ACCOUNT: 'true', ADMIN_EMAIL: 'ops@example.test' });
      const first = await startServerProcess(env, await freePort());
      try {
        const output = first.output();
        assert.match(output, /sign in as ops@example\.test/);
        const link = new RegExp(`${first.origin.replace(/[.]/g, '\\.')}/admin/setup\\?token=[A-Za-z0-9_-]{43}`).exec(output)?.[0];
        assert.ok(link, output);
        const browser = new AdminClient(first.origin);
        const setUp = await browser.post('/admin/api/setup', { token: tokenOf(link), password: PASSWORD });
        assert.equal(setUp.status, 200, setUp.text);
        assert.equal(setUp.body.user.email, 'ops@example.test');
        assert.equal(setUp.body.user.role, 'owner');
        assert.equal(setUp.body.account.name, 'First account');
        // The token printed beside it belongs to the same account.
        const token = /prl_[A-Za-z0-9]{40}/.exec(output)?.[0];
        const made = await fetch(`${first.origin}/v1/channels`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'service_chat', name: 'Made by token' }),
        });
        assert.equal(made.status, 201);
        const seen = await browser.get('/admin/api/v1/channels');
        assert.deepEqual(
          seen.body.map((c: { name: string }) => c.name),
          ['Made by token'],
        );
      } finally {
        await first.stop();
      }
      const second = await startServerProcess(env, await freePort());
      try {
        assert.ok(!/admin\/setup\?token=/.test(second.output()), 'printed only on the first start');
      } finally {
        await second.stop();
      }
    });
  });
}
