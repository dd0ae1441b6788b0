import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { checkAccessibility, chromiumMissing, createAdminUser } from '../helpers/admin-browser.js';
import { adminSuite } from '../helpers/admin-suite.js';
import type { Locator, Page } from 'playwright-core';

// Signing in to the administration app as a user would: by keyboard alone, with wrong
// credentials, throttled, through a one-time setup link, with a password someone else set that
// must be changed first, changing it from the account menu (other sessions end), and signing out.

const browserSkip = chromiumMissing();

/** The form's fields as a password manager reads them: type, autocomplete, hidden, value. */
async function passwordManagerFields(scope: Page | Locator) {
  return scope
    .locator('form input:not([type="checkbox"]):not([type="radio"])')
    .evaluateAll((inputs) =>
      (inputs as HTMLInputElement[]).map((i) => ({ type: i.type, autocomplete: i.getAttribute('autocomplete'), hidden: i.hidden, value: i.value })),
    );
}

for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['keyboard only'] })) {
  describe(`Admin app sign-in in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    const admin = adminSuite(dialect);

    test('keyboard only: the app sends a visitor to sign-in, which signs in with Tab and Enter and comes back to the page asked for', async () => {
      const a = await admin.open();
      await a.goto('/admin/api-settings');
      await a.page.getByRole('heading', { name: 'Sign in' }).waitFor();
      assert.match(a.page.url(), /\/admin\/sign-in\?next=%2Fadmin%2Fapi-settings$/);
      await checkAccessibility(a.page, 'the sign-in page');
      // A page before sign-in logs nothing: asking for the session is no error answer.
      await a.assertNoProblems();
      assert.deepEqual(await passwordManagerFields(a.page), [
        { type: 'email', autocomplete: 'username', hidden: false, value: '' },
        { type: 'password', autocomplete: 'current-password', hidden: false, value: '' },
      ]);
      // The e-mail field has the focus; nothing but the keyboard from here.
      assert.equal(await a.page.evaluate(() => document.activeElement?.getAttribute('name')), 'email');
      await a.page.keyboard.type(admin.owner.email);
      await a.page.keyboard.press('Tab');
      await a.page.keyboard.type(admin.owner.password);
      await a.page.keyboard.press('Enter');
      await a.page.getByRole('heading', { name: 'API settings', level: 1 }).waitFor();
      assert.equal(new URL(a.page.url()).pathname, '/admin/api-settings');
      await a.page.getByRole('button', { name: `Account menu, signed in as ${admin.owner.email}` }).waitFor();
      // The session is a cookie the page's scripts cannot read.
      assert.equal(await a.page.evaluate(() => document.cookie), '');
      const cookie = (await a.context.cookies()).find((c) => c.name === 'parley_session');
      assert.ok(cookie);
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Strict');
      await a.assertNoProblems();
    });

    test('keyboard only: the skip link reaches the page, the navigation follows Tab and Enter, the account menu opens with Enter and closes with Escape', async () => {
      const a = await admin.open(admin.owner);
      await a.goto('/admin/');
      await a.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      const focused = () => a.page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
      // The first Tab shows the skip link; Enter moves to the page's content.
      await a.page.keyboard.press('Tab');
      assert.equal(await focused(), 'Skip to content');
      assert.ok(await a.page.getByRole('link', { name: 'Skip to content' }).isVisible());
      await a.page.keyboard.press('Enter');
      assert.equal(await a.page.evaluate(() => document.activeElement?.id), 'main');

      // From the top of a fresh page: skip link, brand, the navigation in order, the account menu.
      await a.goto('/admin/');
      await a.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      const names: string[] = [];
      for (let i = 0; i < 7; i++) {
        await a.page.keyboard.press('Tab');
        names.push(await focused());
      }
      assert.equal(names[0], 'Skip to content');
      assert.match(names[1] ?? '', /Parley/);
      assert.deepEqual(names.slice(2, 6), ['Overview', 'Channels', 'API settings', 'Users']);
      assert.ok(names[6]?.startsWith(`Account menu, signed in as ${admin.owner.email}`), names[6]);
      // Back two, to API settings, and Enter.
      await a.page.keyboard.press('Shift+Tab');
      await a.page.keyboard.press('Shift+Tab');
      await a.page.keyboard.press('Enter');
      await a.page.getByRole('heading', { name: 'API settings', level: 1 }).waitFor();

      // The account menu: Enter opens it with focus on its first item, Escape closes it and gives focus back.
      const menuButton = a.page.getByRole('button', { name: /^Account menu/ });
      await menuButton.focus();
      await a.page.keyboard.press('Enter');
      const menu = a.page.getByRole('menu');
      await menu.waitFor();
      assert.equal(await a.page.evaluate(() => document.activeElement?.getAttribute('role')), 'menuitem');
      await a.page.keyboard.press('Escape');
      await menu.waitFor({ state: 'hidden' });
      assert.equal(await menuButton.evaluate((el) => el === document.activeElement), true);
      // Arrow down to Sign out, Enter: signed out.
      await a.page.keyboard.press('Enter');
      await menu.waitFor();
      await a.page.keyboard.press('ArrowDown');
      await a.page.keyboard.press('Enter');
      await a.page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await a.assertNoProblems();
    });

    test('a wrong password and an unknown e-mail get the same message, next to nothing that tells them apart', async () => {
      const a = await admin.open();
      await a.goto('/admin/sign-in');
      const form = async (email: string, password: string) => {
        await a.page.getByLabel('E-mail').fill(email);
        await a.page.getByLabel('Password').fill(password);
        await a.page.getByRole('button', { name: 'Sign in' }).click();
        return (await a.page.getByRole('alert').first().textContent())?.trim();
      };
      assert.equal(await form(admin.owner.email, 'not the password at all'), 'Wrong email or password.');
      assert.equal(await form('nobody@example.com', 'not the password at all'), 'Wrong email or password.');
      await a.assertNoProblems([{ status: 401, path: '/admin/api/session' }]);
      // Empty fields are said before anything is sent.
      await a.page.getByLabel('E-mail').fill('');
      await a.page.getByRole('button', { name: 'Sign in' }).click();
      await a.page.getByText('Enter your e-mail address.').waitFor();
      assert.equal(await a.page.getByLabel('E-mail').getAttribute('aria-invalid'), 'true');
      await checkAccessibility(a.page, 'the sign-in page with errors');
      await a.assertNoProblems();
    });

    test('after ten failed tries for one e-mail the page says to wait, with the time the server gives', async () => {
      const victim = await createAdminUser(admin.s, admin.s.accountId, 'throttled@example.com', 'member');
      const a = await admin.open();
      for (let i = 0; i < 10; i++) {
        const res = await a.context.request.post('/admin/api/session', { data: { email: victim.email, password: `wrong password ${i}` } });
        assert.equal(res.status(), 401);
      }
      await a.goto('/admin/sign-in');
      await a.page.getByLabel('E-mail').fill(victim.email);
      await a.page.getByLabel('Password').fill(victim.password);
      await a.page.getByRole('button', { name: 'Sign in' }).click();
      const alert = a.page.getByRole('alert');
      await alert.waitFor();
      assert.match((await alert.textContent()) ?? '', /^Too many sign-in attempts\. Wait \d+ (seconds|minutes) and try again\.$/);
      assert.equal(new URL(a.page.url()).pathname, '/admin/sign-in');
      await a.assertNoProblems([{ status: 429, path: '/admin/api/session' }]);
    });

    test('a person who is a user of two accounts with one password chooses the account, then lands in it', async () => {
      const shop = await admin.s.newAccount('free');
      const agency = await admin.s.newAccount('developer');
      await createAdminUser(admin.s, shop.accountId, 'both@example.com', 'owner', 'one password for both');
      await createAdminUser(admin.s, agency.accountId, 'both@example.com', 'member', 'one password for both');
      const a = await admin.open();
      await a.goto('/admin/channels');
      await a.page.getByLabel('E-mail').fill('both@example.com');
      await a.page.getByLabel('Password').fill('one password for both');
      await a.page.getByRole('button', { name: 'Sign in' }).click();
      await a.page.getByRole('heading', { name: 'Choose an account' }).waitFor();
      await checkAccessibility(a.page, 'the account choice');
      const choices = a.page.getByRole('list', { name: 'Accounts' }).getByRole('button');
      assert.deepEqual(await choices.allTextContents(), [`test (free plan, account ${shop.accountId})`, `test (developer plan, account ${agency.accountId})`]);
      assert.equal((await a.context.request.get('/admin/api/session')).status(), 401, 'no session before the choice');
      await a.page.getByRole('button', { name: `test (developer plan, account ${agency.accountId})` }).click();
      await a.page.getByRole('heading', { name: 'Channels', level: 1 }).waitFor();
      const session = await (await a.context.request.get('/admin/api/session')).json();
      assert.equal(session.account.id, String(agency.accountId));
      assert.equal(session.user.role, 'member');
      await a.assertNoProblems();
    });

    test('a one-time setup link sets the password and signs in; the link works once', async () => {
      const made = await admin.s.runtime.services.users.createUser({ accountId: admin.s.accountId, email: 'new.hire@example.com', role: 'member' });
      assert.ok(made.setupLink);
      const link = new URL(made.setupLink);
      assert.equal(link.pathname, '/admin/setup');
      const a = await admin.open();
      await a.goto(`${link.pathname}${link.search}`);
      await a.page.getByRole('heading', { name: 'Set your password' }).waitFor();
      await checkAccessibility(a.page, 'the setup page');
      await a.assertNoProblems();
      // The page does not know who the link is for: the e-mail is asked, for the password manager.
      assert.deepEqual(await passwordManagerFields(a.page), [
        { type: 'email', autocomplete: 'username', hidden: false, value: '' },
        { type: 'password', autocomplete: 'new-password', hidden: false, value: '' },
        { type: 'password', autocomplete: 'new-password', hidden: false, value: '' },
      ]);
      await a.page.getByLabel('E-mail').fill('new.hire@example.com');
      await a.page.getByLabel('Password', { exact: true }).fill('short');
      await a.page.getByRole('button', { name: 'Set password and sign in' }).click();
      await a.page.getByText('Use at least 12 characters.').waitFor();
      await a.page.getByLabel('Password', { exact: true }).fill('a long enough passphrase');
      await a.page.getByLabel('Password again').fill('a long enough passphrase');
      await a.page.getByRole('button', { name: 'Set password and sign in' }).click();
      await a.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      await a.page.getByRole('button', { name: 'Account menu, signed in as new.hire@example.com' }).waitFor();

      const again = await admin.open();
      await again.goto(`${link.pathname}${link.search}`);
      await again.page.getByLabel('Password', { exact: true }).fill('another long passphrase');
      await again.page.getByLabel('Password again').fill('another long passphrase');
      await again.page.getByRole('button', { name: 'Set password and sign in' }).click();
      await again.page.getByText(/This setup link is not valid any more/).waitFor();
      await a.assertNoProblems();
      await again.assertNoProblems([{ status: 422, path: '/admin/api/setup' }]);
    });

    test('a password someone else set must be changed before any page shows', async () => {
      await admin.s.runtime.services.users.createUser({
        accountId: admin.s.accountId,
        email: 'given@example.com',
        role: 'member',
        password: 'set by the owner 1',
      });
      const a = await admin.open();
      await a.goto('/admin/channels');
      await a.page.getByLabel('E-mail').fill('given@example.com');
      await a.page.getByLabel('Password').fill('set by the owner 1');
      await a.page.getByRole('button', { name: 'Sign in' }).click();
      await a.page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      assert.equal(await a.page.getByRole('navigation', { name: 'Main' }).count(), 0);
      await checkAccessibility(a.page, 'the forced password change');
      // The user is known: the username field is hidden, holding the e-mail.
      assert.deepEqual(await passwordManagerFields(a.page), [
        { type: 'email', autocomplete: 'username', hidden: true, value: 'given@example.com' },
        { type: 'password', autocomplete: 'current-password', hidden: false, value: '' },
        { type: 'password', autocomplete: 'new-password', hidden: false, value: '' },
        { type: 'password', autocomplete: 'new-password', hidden: false, value: '' },
      ]);
      await a.page.getByLabel('Current password').fill('wrong current one');
      await a.page.getByLabel('New password', { exact: true }).fill('my very own password');
      await a.page.getByLabel('New password again').fill('my very own password');
      await a.page.getByRole('button', { name: 'Save new password' }).click();
      await a.page.getByText('The current password is wrong.').waitFor();
      await a.page.getByLabel('Current password').fill('set by the owner 1');
      await a.page.getByRole('button', { name: 'Save new password' }).click();
      await a.page.getByRole('heading', { name: 'Channels', level: 1 }).waitFor();
      const check = await a.context.request.get('/admin/api/session');
      assert.equal((await check.json()).user.must_change_password, false);
      await a.assertNoProblems([{ status: 422, path: '/admin/api/session/password' }]);
    });

    test('changing the password from the account menu ends the other sessions; signing out ends this one', async () => {
      const user = await createAdminUser(admin.s, admin.s.accountId, 'changer@example.com', 'member');
      const other = await admin.open(user);
      await other.goto('/admin/channels');
      await other.page.getByRole('heading', { name: 'Channels', level: 1 }).waitFor();
      const a = await admin.open(user);
      await a.goto('/admin/');
      await a.page.getByRole('button', { name: /^Account menu/ }).click();
      await a.page.getByRole('menuitem', { name: 'Change password' }).click();
      const dialog = a.page.getByRole('dialog', { name: 'Change password' });
      await dialog.waitFor();
      await checkAccessibility(a.page, 'the change password dialog');
      assert.deepEqual(await passwordManagerFields(dialog), [
        { type: 'email', autocomplete: 'username', hidden: true, value: user.email },
        { type: 'password', autocomplete: 'current-password', hidden: false, value: '' },
        { type: 'password', autocomplete: 'new-password', hidden: false, value: '' },
        { type: 'password', autocomplete: 'new-password', hidden: false, value: '' },
      ]);
      await dialog.getByLabel('Current password').fill(user.password);
      await dialog.getByLabel('New password', { exact: true }).fill('the second password');
      await dialog.getByLabel('New password again').fill('the second passwort');
      await dialog.getByRole('button', { name: 'Change password' }).click();
      await dialog.getByText('The two new passwords differ.').waitFor();
      await dialog.getByLabel('New password again').fill('the second password');
      await dialog.getByRole('button', { name: 'Change password' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await a.page.getByText('Password changed. Your other sessions were signed out.').waitFor();

      // The other browser's next request finds its session gone: it is sent to sign-in, and back after.
      await other.page.getByRole('link', { name: 'API settings' }).click();
      await other.page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await other.page.getByText('Your session has ended. Sign in again.').waitFor();
      await other.page.getByLabel('E-mail').fill(user.email);
      await other.page.getByLabel('Password').fill('the second password');
      await other.page.getByRole('button', { name: 'Sign in' }).click();
      await other.page.getByRole('heading', { name: 'API settings', level: 1 }).waitFor();

      await a.page.getByRole('button', { name: /^Account menu/ }).click();
      await a.page.getByRole('menuitem', { name: 'Sign out' }).click();
      await a.page.getByRole('heading', { name: 'Sign in' }).waitFor();
      assert.equal((await a.context.request.get('/admin/api/session')).status(), 401);
      await a.goto('/admin/channels');
      await a.page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await a.assertNoProblems();
      // The other browser's request with the ended session was answered 401, which sent it to sign-in.
      await other.assertNoProblems([{ status: 401, path: /^\/admin\/api\// }]);
    });
  });
}
