import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { checkAccessibility, chromiumMissing } from '../helpers/admin-browser.js';
import { adminSuite } from '../helpers/admin-suite.js';

// API settings as the spec's users get their token: an owner creates one, sees it once, copies
// it and uses it against /v1 with a real HTTP call; it is listed by name, prefix and last use,
// never shown again; revoking it stops it. A member sees the list but cannot make or revoke one.
// The plan's limits and this hour's use are shown.

const browserSkip = chromiumMissing();

for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['an owner creates a token'] })) {
  describe(`Admin app API settings in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    const admin = adminSuite(dialect, { server: { plan: 'developer' }, users: ['owner', 'member'] });

    test('an owner creates a token, copies it once, and it works against the API; revoked, it stops working', async () => {
      const a = await admin.open(admin.owner);
      await a.goto('/admin/api-settings');
      const table = a.page.getByRole('grid', { name: 'Access tokens' });
      await table.waitFor();
      await checkAccessibility(a.page, 'API settings');

      // Only this account's tokens: another account's token (named like ours) is not listed.
      const other = await admin.s.newAccount();
      await admin.s.runtime.services.accounts.createToken(other.accountId, 'Order bot of another account');
      assert.equal(await table.getByRole('row', { name: /another account/ }).count(), 0);
      await a.page.reload();
      await table.getByRole('row').nth(1).waitFor();
      assert.equal(await table.getByRole('row', { name: /another account/ }).count(), 0);

      await a.page.getByRole('button', { name: 'Create token' }).click();
      const dialog = a.page.getByRole('dialog', { name: 'Create an access token' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Create token' }).click();
      await dialog.getByText('Give the token a name').waitFor();
      await dialog.getByLabel('Name').fill('Order bot');
      await dialog.getByRole('button', { name: 'Create token' }).click();
      const shown = a.page.getByRole('dialog', { name: 'Your new token' });
      await shown.waitFor();
      await checkAccessibility(a.page, 'the new token dialog');
      const token = ((await shown.getByTestId('new-token').textContent()) ?? '').trim();
      assert.match(token, /^prl_/);
      await shown.getByRole('button', { name: 'Copy token' }).click();
      await shown.getByText('Copied').waitFor();
      assert.equal(await a.page.evaluate(() => navigator.clipboard.readText()), token);

      // The copied token against the public API, over HTTP like any program would.
      const before = await fetch(`${admin.s.baseUrl}/channels`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(before.status, 200, await before.text());
      assert.equal(before.headers.get('x-ratelimit-limit'), '2000');

      await shown.getByRole('button', { name: 'Done' }).click();
      await shown.waitFor({ state: 'hidden' });
      await a.page.reload();
      const row = table.getByRole('row', { name: /Order bot/ });
      await row.waitFor();
      // Listed by name and prefix, never the token itself; its use is seen.
      const prefix = ((await row.locator('code').textContent()) ?? '').replace(/…$/, '');
      assert.ok(prefix.length >= 4 && token.startsWith(prefix), `prefix ${prefix} of ${token}`);
      assert.equal(await a.page.getByText(token).count(), 0);
      assert.match((await row.textContent()) ?? '', /just now|minute/);

      await row.getByRole('button', { name: 'Revoke token Order bot' }).click();
      const confirm = a.page.getByRole('alertdialog', { name: 'Revoke “Order bot”?' });
      await confirm.getByText(`the token starting ${prefix}`).waitFor();
      await confirm.getByRole('button', { name: 'Revoke token' }).click();
      await confirm.waitFor({ state: 'hidden' });
      await row.waitFor({ state: 'detached' });
      const after = await fetch(`${admin.s.baseUrl}/channels`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(after.status, 401);
      await a.assertNoProblems();
    });

    test("the plan's limits and this hour's use are shown and follow the account's requests", async () => {
      const a = await admin.open(admin.owner);
      const read = async () => {
        await a.goto('/admin/api-settings');
        const panel = a.page.getByRole('region', { name: 'Plan and usage' });
        await panel.getByText('requests per hour').waitFor();
        const used = Number(await a.page.getByRole('meter', { name: 'Requests used this hour' }).getAttribute('aria-valuenow'));
        return { text: (await panel.textContent()) ?? '', used };
      };
      const first = await read();
      assert.match(first.text, /developer/);
      assert.match(first.text, /2,000|2000/);
      for (let i = 0; i < 3; i++) assert.equal((await admin.s.api.get('/v1/channels')).status, 200);
      const second = await read();
      assert.ok(second.used >= first.used + 3, `used ${first.used} then ${second.used}`);
      await a.assertNoProblems();
    });

    test('a member sees the tokens but cannot create or revoke one, in the page or through the API', async () => {
      const a = await admin.open(admin.member);
      await a.goto('/admin/api-settings');
      await a.page.getByText('Only an owner of the account can create or revoke tokens.').waitFor();
      await a.page.getByRole('grid', { name: 'Access tokens' }).getByRole('row').nth(1).waitFor();
      assert.equal(await a.page.getByRole('button', { name: 'Create token' }).count(), 0);
      assert.equal(await a.page.getByRole('button', { name: /^Revoke/ }).count(), 0);
      await checkAccessibility(a.page, 'API settings of a member');

      const session = await (await a.context.request.get('/admin/api/session')).json();
      const made = await a.context.request.post('/admin/api/tokens', { data: { name: 'sneaky' }, headers: { 'x-csrf-token': session.csrf_token } });
      assert.equal(made.status(), 403);
      assert.equal((await made.json()).errors[0].message, 'Only an owner can manage tokens.');
      const listed = await (await a.context.request.get('/admin/api/tokens')).json();
      const revoke = await a.context.request.delete(`/admin/api/tokens/${listed.data[0].id}`, { headers: { 'x-csrf-token': session.csrf_token } });
      assert.equal(revoke.status(), 403);
      assert.equal((await admin.s.api.get('/v1/channels')).status, 200);
      await a.assertNoProblems();
    });
  });
}
