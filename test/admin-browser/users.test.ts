import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { checkAccessibility, chromiumMissing, createAdminUser } from '../helpers/admin-browser.js';
import { adminSuite } from '../helpers/admin-suite.js';

// Users of an account, managed by an owner in the app: added with a password the new user must
// change, or with a one-time setup link shown once; removed (their session ends). An owner cannot
// remove themself. A member never sees the Users item and is told why at its address; the API
// refuses a member too.

const browserSkip = chromiumMissing();

for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['an owner adds a member'] })) {
  describe(`Admin app users in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    const admin = adminSuite(dialect, { users: ['owner', 'member'] });

    test('an owner adds a member with a password, who must change it at first sign-in; then removes them, which ends their session', async () => {
      const a = await admin.open(admin.owner);
      await a.goto('/admin/');
      await a.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
      const table = a.page.getByRole('grid', { name: 'Users' });
      await table.getByRole('row', { name: /owner@example\.com \(you\)/ }).waitFor();
      await table.getByRole('row', { name: /member@example\.com/ }).waitFor();
      // Another account's users are not this account's business.
      const other = await admin.s.newAccount();
      await createAdminUser(admin.s, other.accountId, 'someone.else@example.com', 'owner');
      await a.page.reload();
      await table.getByRole('row', { name: /member@example\.com/ }).waitFor();
      assert.equal(await a.page.getByText('someone.else@example.com').count(), 0);
      // Nobody removes themself: no button on one's own row.
      assert.equal(
        await table
          .getByRole('row', { name: /owner@example\.com/ })
          .getByRole('button')
          .count(),
        0,
      );
      await checkAccessibility(a.page, 'the users page');

      await a.page.getByRole('button', { name: 'Add user' }).click();
      const dialog = a.page.getByRole('dialog', { name: 'Add a user' });
      await dialog.getByLabel('E-mail').fill('member@example.com');
      await dialog.getByLabel('Initial password (optional)').fill('a password for you');
      await dialog.getByRole('button', { name: 'Add user' }).click();
      // The server's 422 names the field; the page shows it there.
      await dialog.getByText('A user with this e-mail address exists already in this account.').waitFor();
      assert.equal(await dialog.getByLabel('E-mail').getAttribute('aria-invalid'), 'true');
      await dialog.getByLabel('E-mail').fill('helper@example.com');
      await dialog.getByRole('button', { name: 'Add user' }).click();
      await dialog.waitFor({ state: 'hidden' });
      const row = table.getByRole('row', { name: /helper@example\.com/ });
      await row.getByText('must change').waitFor();
      assert.match((await row.textContent()) ?? '', /member/);

      const helper = await admin.open();
      await helper.goto('/admin/sign-in');
      await helper.page.getByLabel('E-mail').fill('helper@example.com');
      await helper.page.getByLabel('Password').fill('a password for you');
      await helper.page.getByRole('button', { name: 'Sign in' }).click();
      await helper.page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await helper.page.getByLabel('Current password').fill('a password for you');
      await helper.page.getByLabel('New password', { exact: true }).fill('my own password now');
      await helper.page.getByLabel('New password again').fill('my own password now');
      await helper.page.getByRole('button', { name: 'Save new password' }).click();
      await helper.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

      await row.getByRole('button', { name: 'Remove helper@example.com' }).click();
      const confirm = a.page.getByRole('alertdialog', { name: 'Remove helper@example.com?' });
      await confirm.getByRole('button', { name: 'Remove user' }).click();
      await row.waitFor({ state: 'detached' });
      await helper.page.getByRole('link', { name: 'Channels' }).click();
      await helper.page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await a.assertNoProblems([{ status: 422, path: '/admin/api/users' }]); // the e-mail taken, shown at its field
      // The removed user's next request is answered 401, which sends the page to sign-in.
      await helper.assertNoProblems([{ status: 401, path: '/admin/api/v1/channels' }]);
    });

    test('an owner adds a user without a password and gets a one-time setup link to copy, which lets them in', async () => {
      const a = await admin.open(admin.owner);
      await a.goto('/admin/users');
      await a.page.getByRole('button', { name: 'Add user' }).click();
      const dialog = a.page.getByRole('dialog', { name: 'Add a user' });
      await dialog.getByLabel('E-mail').fill('second.owner@example.com');
      await dialog.getByRole('button', { name: /Role/ }).click();
      await a.page.getByRole('option', { name: /^Owner/ }).click();
      await dialog.getByRole('button', { name: 'Add user' }).click();
      const shown = a.page.getByRole('dialog', { name: 'Setup link' });
      const link = ((await shown.getByTestId('setup-link').textContent()) ?? '').trim();
      assert.match(link, new RegExp(`^${admin.s.origin}/admin/setup\\?token=`));
      await checkAccessibility(a.page, 'the setup link dialog');
      await shown.getByRole('button', { name: 'Copy link' }).click();
      assert.equal(await a.page.evaluate(() => navigator.clipboard.readText()), link);
      await shown.getByRole('button', { name: 'Done' }).click();
      await a.page
        .getByRole('grid', { name: 'Users' })
        .getByRole('row', { name: /second\.owner@example\.com/ })
        .getByText('owner', { exact: true })
        .waitFor();

      const newcomer = await admin.open();
      await newcomer.goto(link);
      await newcomer.page.getByLabel('Password', { exact: true }).fill('second owner password');
      await newcomer.page.getByLabel('Password again').fill('second owner password');
      await newcomer.page.getByRole('button', { name: 'Set password and sign in' }).click();
      await newcomer.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).waitFor();
      await a.assertNoProblems();
      await newcomer.assertNoProblems();
    });

    test('a member has no Users item, is told at its address that only an owner manages users, and the API refuses them', async () => {
      const a = await admin.open(admin.member);
      await a.goto('/admin/');
      const nav = a.page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'API settings' }).waitFor();
      assert.deepEqual(await nav.getByRole('link').allTextContents(), ['Overview', 'Channels', 'API settings']);
      await a.goto('/admin/users');
      await a.page.getByText('Only an owner can manage users.').waitFor();
      assert.equal(await a.page.getByRole('grid').count(), 0);
      assert.equal(await a.page.getByRole('button', { name: 'Add user' }).count(), 0);
      await checkAccessibility(a.page, 'the users page of a member');

      const session = await (await a.context.request.get('/admin/api/session')).json();
      const listed = await a.context.request.get('/admin/api/users');
      assert.equal(listed.status(), 403);
      assert.equal((await listed.json()).errors[0].message, 'Only an owner can manage users.');
      const added = await a.context.request.post('/admin/api/users', {
        data: { email: 'x@example.com', role: 'owner' },
        headers: { 'x-csrf-token': session.csrf_token },
      });
      assert.equal(added.status(), 403);
      const removed = await a.context.request.delete(`/admin/api/users/${admin.owner.id}`, { headers: { 'x-csrf-token': session.csrf_token } });
      assert.equal(removed.status(), 403);
      await a.assertNoProblems();
    });
  });
}
