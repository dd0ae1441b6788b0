import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { dialects } from '../helpers/databases.js';
import { startHarness, SMS_ACCESS_KEY, SMS_SIGNING_KEY, http, type Harness } from '../connectors/helpers/harness.js';
import { eventually } from '../helpers/waits.js';
import { createRbmStandIn } from '../../sandbox/rbm/server.js';
import { createAppmsgStandIn } from '../../sandbox/appmsg/server.js';
import { createMailproviderStandIn } from '../../sandbox/mailprovider/server.js';
import { checkAccessibility, chromiumMissing, type AdminPage } from '../helpers/admin-browser.js';
import { adminSuite } from '../helpers/admin-suite.js';

// Channels in the app with the platform stand-ins running: one channel of each type made through
// its own form (in production against their stand-ins where the type checks credentials:
// socialnet_chat, mobile, botmsg, rbm, appmsg, email); the API's 422 shown at the field it names; edit; the rbm agent's life cycle, each
// step the one its state allows, the platform's answers seen on request; delete with a
// confirmation that counts what goes with it; and another account's channels never shown.

const browserSkip = chromiumMissing();
const SMS_NUMBER = '+420601000333';
const MAIL_KEY = 'mail-provider-key-of-the-cafe';
const MAIL_DOMAIN = 'mail.corner.example';

for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['one channel of each type'] })) {
  describe(`Admin app channels in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    let h: Harness;
    let rbm: ReturnType<typeof createRbmStandIn>;
    let rbmBase = '';
    const appmsg = createAppmsgStandIn();
    let appmsgBase = '';
    const mail = createMailproviderStandIn({ apiKey: MAIL_KEY, webhookSigningKey: 'mail-signing-key', domains: [MAIL_DOMAIN] });
    const rbmSandbox = (path: string, body?: unknown) => http(body === undefined ? 'GET' : 'POST', `${rbmBase}/_sandbox${path}`, body);
    let mailBase = '';
    let a: AdminPage;
    const made = new Map<string, string>();

    before(async () => {
      rbm = createRbmStandIn();
      rbmBase = await rbm.listen(0);
      appmsgBase = await appmsg.listen(0);
      mailBase = await mail.listen(0);
    });
    const admin = adminSuite(dialect, {
      start: async (env) =>
        (h = await startHarness(dialect, {
          ...env,
          RBM_API_URL: rbmBase,
          RBM_MANAGEMENT_URL: `${rbmBase}/mgmt`,
          RBM_TOKEN_URL: `${rbmBase}/token`,
          APPMSG_API_URL: appmsgBase,
          MAILPROVIDER_API_URL: mailBase,
        })),
    });
    before(async () => {
      a = await admin.open(admin.owner);
    });
    after(async () => {
      await Promise.allSettled([rbm?.close(), appmsg.close(), mail.close()]);
    });

    /** Opens the new channel form, picks the type from the list, fills the fields and submits. */
    async function createThroughForm(page: Page, typeLabel: RegExp, fields: Record<string, string>, mode?: RegExp): Promise<void> {
      await a.goto('/admin/channels');
      await page.getByRole('link', { name: 'New channel' }).click();
      await page.getByRole('heading', { name: 'New channel', level: 1 }).waitFor();
      await page.getByRole('button', { name: /Channel type/ }).click();
      await page.getByRole('option', { name: typeLabel }).click();
      if (mode) {
        await page.getByRole('button', { name: /Mode/ }).click();
        await page.getByRole('option', { name: mode }).click();
      }
      for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
      await page.getByRole('button', { name: 'Create channel' }).click();
    }

    async function expectCreated(page: Page, name: string): Promise<string> {
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      const id = /\/admin\/channels\/(\d+)$/.exec(new URL(page.url()).pathname)?.[1];
      assert.ok(id, page.url());
      made.set(name, id);
      return id;
    }

    test('one channel of each type through its own form; production credentials checked by the stand-ins, a refusal shown at its field', async () => {
      const page = a.page;

      // mobile in production against the SMS provider stand-in: a wrong key first.
      await createThroughForm(page, /^SMS \(mobile\)/, {
        Name: 'Order updates SMS',
        'Sender id': SMS_NUMBER,
        'Provider access token': 'live_not_the_key',
        'Signing key': SMS_SIGNING_KEY,
      });
      const keyField = page.getByLabel('Provider access token', { exact: true });
      await page.waitForFunction(() => document.querySelector('[aria-invalid="true"]') !== null);
      assert.equal(await keyField.getAttribute('aria-invalid'), 'true');
      const keyError = await page.locator('.field', { has: keyField }).locator('.field-error').textContent();
      assert.ok(keyError && keyError.length > 0, 'the refusal is shown next to the access token field');
      assert.equal(await page.getByLabel('Sender id', { exact: true }).getAttribute('aria-invalid'), null);
      await checkAccessibility(page, 'the new channel form with an error');
      await keyField.fill(SMS_ACCESS_KEY);
      await page.getByRole('button', { name: 'Create channel' }).click();
      await expectCreated(page, 'Order updates SMS');
      // The URLs the provider needs are shown with a copy button.
      await page.getByText(/\/inbound\/\d+\/receive$/).waitFor();
      await checkAccessibility(page, 'the channel details page');

      // socialnet_chat in production: a page made on the stand-in, connected with its admin's token.
      const sn = await h.snSandbox('/pages', { name: 'Corner Café', category: 'Restaurant' });
      assert.equal(sn.status, 201, sn.text);
      await createThroughForm(page, /^Social network chat/, {
        Name: 'Café page',
        'Page id': sn.body.page.id,
        'Page access token': sn.body.admin.user_access_token,
      });
      await expectCreated(page, 'Café page');
      await page.getByText('Corner Café').waitFor();

      // botmsg in production: a bot made on its stand-in; its name is read from the platform.
      const bot = await h.bmSandbox('/bots', { username: 'corner_cafe_bot', first_name: 'Corner Café Bot' });
      assert.equal(bot.status, 201, bot.text);
      await createThroughForm(page, /^Bot messaging/, { Name: 'Café bot', 'Bot token': bot.body.token });
      await expectCreated(page, 'Café bot');
      await page.getByText('corner_cafe_bot').waitFor();

      await createThroughForm(page, /^Web chat/, { Name: 'Site chat' });
      await expectCreated(page, 'Site chat');

      // rbm in production with a partner's service-account key, pasted as the file's JSON.
      const partner = await rbmSandbox('/partners', {});
      assert.equal(partner.status, 201, partner.text);
      await createThroughForm(page, /^RCS business messaging/, {
        Name: 'RCS offers',
        'Agent name': 'Corner Café',
        'Service-account key (JSON)': JSON.stringify(partner.body.service_account_key, null, 2),
      });
      await expectCreated(page, 'RCS offers');

      // appmsg in production: an account made on its stand-in.
      const account = await http('POST', `${appmsgBase}/_sandbox/bots`, { name: 'Corner Café', uri: 'cornercafe' });
      assert.equal(account.status, 201, account.text);
      await createThroughForm(page, /^App messaging \(appmsg\)/, { Name: 'App chat', 'Access token': account.body.token });
      await expectCreated(page, 'App chat');

      // appmsg_business_messages: a sender id that is not the platform's numeric form is refused at its field.
      await createThroughForm(
        page,
        /^App business messages/,
        { Name: 'Business app', 'Sender id': 'corner-cafe', 'Default message lifetime': 'PT20M' },
        /^Test/,
      );
      const senderField = page.getByLabel('Sender id', { exact: true });
      await page.locator('.field', { has: senderField }).locator('.field-error').filter({ hasText: /./ }).waitFor();
      assert.equal(await senderField.getAttribute('aria-invalid'), 'true');
      await senderField.fill('4001');
      await page.getByRole('button', { name: 'Create channel' }).click();
      await expectCreated(page, 'Business app');
      await page.getByText('Test mode').first().waitFor();
      await page.getByText(/\/inbound\/\d+\/callbacks\?token=[A-Za-z0-9_-]+$/).waitFor();

      // email in production: the API key and domain are checked with the mail provider stand-in.
      await createThroughForm(page, /^E-mail/, {
        Name: 'Support mail',
        'Provider API key': MAIL_KEY,
        'Sender address': `support@${MAIL_DOMAIN}`,
        'Sender name': 'Corner Café',
      });
      await expectCreated(page, 'Support mail');
      await page.getByText(/\/inbound\/\d+\/mail$/).waitFor();

      // All eight in the list, with their type and mode, as the API has them.
      await a.goto('/admin/channels');
      const grid = page.getByRole('grid', { name: 'Channels' });
      await grid.getByRole('row', { name: /Support mail/ }).waitFor();
      const listed = await h.s.api.get('/v1/channels?max=100');
      assert.deepEqual(listed.body.map((c: { type: string }) => c.type).sort(), [
        'appmsg',
        'appmsg_business_messages',
        'botmsg',
        'email',
        'mobile',
        'rbm',
        'service_chat',
        'socialnet_chat',
      ]);
      for (const channel of listed.body as { name: string; mode?: string }[]) {
        const row = grid.getByRole('row', { name: new RegExp(channel.name) });
        await row.waitFor();
        if (channel.mode) assert.match((await row.textContent()) ?? '', new RegExp(channel.mode));
      }
      assert.equal(listed.body.find((c: { name: string }) => c.name === 'Order updates SMS').mode, 'production');
      assert.equal(listed.body.find((c: { name: string }) => c.name === 'Business app').mode, 'test');
      await checkAccessibility(page, 'the channels list');
      await a.assertNoProblems([{ status: 422, path: '/admin/api/v1/channels' }]); // the refusals shown at their fields
    });

    test('editing a channel changes its name and mode; a secret left empty is kept', async () => {
      const id = made.get('Order updates SMS');
      assert.ok(id);
      const page = a.page;
      await a.goto(`/admin/channels/${id}`);
      await page.getByRole('link', { name: 'Edit channel' }).click();
      await page.getByRole('heading', { name: 'Edit Order updates SMS' }).waitFor();
      await checkAccessibility(page, 'the edit channel form');
      assert.equal(await page.getByLabel('Sender id', { exact: true }).inputValue(), SMS_NUMBER);
      assert.equal(await page.getByLabel('Provider access token', { exact: true }).inputValue(), '');
      await page.getByLabel('Name', { exact: true }).fill('Shipping SMS');
      await page.getByRole('button', { name: /Mode/ }).click();
      await page.getByRole('option', { name: /^Test/ }).click();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('heading', { name: 'Shipping SMS', level: 1 }).waitFor();
      const got = await h.s.api.get(`/v1/channels/${id}`);
      assert.equal(got.body.name, 'Shipping SMS');
      assert.equal(got.body.mode, 'test');
      assert.equal(got.body.provider.access_token, SMS_ACCESS_KEY);
      await a.assertNoProblems();
    });

    test('the rbm agent offers the step its state allows: register, then launch once the platform created it; its answers shown on request', async () => {
      const id = made.get('RCS offers');
      assert.ok(id);
      const page = a.page;
      await a.goto(`/admin/channels/${id}`);
      // The key is never shown again: only its client_email.
      const channel = (await h.s.api.get(`/v1/channels/${id}`)).body;
      await page.getByText(channel.rbm.service_account_key.client_email).waitFor();
      const agent = page.getByRole('region', { name: 'RCS agent' });
      await agent.getByText('Agent not registered').first().waitFor();
      assert.equal(await agent.getByRole('button', { name: 'Launch agent' }).count(), 0);
      /** Fills the rbm agent's fields on the edit form (text fields by label, then selects) and saves. */
      const edit = async (fields: Record<string, string>, selects: Record<string, RegExp> = {}) => {
        await page.getByRole('link', { name: 'Edit channel' }).click();
        await page.getByRole('heading', { name: 'Edit RCS offers' }).waitFor();
        for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
        for (const [label, option] of Object.entries(selects)) {
          await page.getByRole('button', { name: new RegExp(label) }).click();
          await page.getByRole('option', { name: option }).click();
        }
        await page.getByRole('button', { name: 'Save changes' }).click();
        await page.getByRole('heading', { name: 'RCS offers', level: 1 }).waitFor();
      };

      // Without the agent's profile the platform registers nothing: the confirmation says which field is missing.
      await agent.getByRole('button', { name: 'Register agent' }).click();
      const confirm = page.getByRole('alertdialog', { name: 'Register agent?' });
      await checkAccessibility(page, 'the register agent confirmation');
      await confirm.getByRole('button', { name: 'Register agent' }).click();
      await confirm
        .getByRole('alert')
        .getByText(/agent_profile\.description/)
        .waitFor();
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await edit(
        {
          'Agent description': 'Coffee to go, ordered by message.',
          'Logo URL': 'https://corner.example/logo.png',
          'Banner image URL': 'https://corner.example/banner.png',
          'Theme color': '#0B78D0',
          'Privacy policy URL': 'https://corner.example/privacy',
          'Terms and conditions URL': 'https://corner.example/terms',
          'Contact phone number': '+420601999000',
          'Contact phone label': 'Call us',
          'Partner name': 'Alice Partner',
          'Partner e-mail': 'alice@partner.example',
          'Brand contact name': 'Bob Brand',
          'Brand contact e-mail': 'bob@corner.example',
          'Brand website URL': 'https://corner.example/',
        },
        { 'Billing category': /^Conversational/ },
      );
      await page.getByText('Coffee to go, ordered by message.').waitFor();
      await agent.getByRole('button', { name: 'Register agent' }).click();
      await page.getByRole('alertdialog', { name: 'Register agent?' }).getByRole('button', { name: 'Register agent' }).click();
      await agent.getByText('Waiting for the RCS platform').waitFor();
      assert.equal(await agent.getByRole('button', { name: /Register agent|Launch agent/ }).count(), 0);

      // The service registers the agent with the platform, which verifies it; the page asks for the news.
      const agentId = await eventually(async () => {
        const got = await h.s.api.get(`/v1/channels/${id}`);
        return typeof got.body.rbm.agent_id === 'string' ? (got.body.rbm.agent_id as string) : undefined;
      });
      assert.equal((await rbmSandbox(`/agents/${agentId}/verification`, { state: 'VERIFICATION_STATE_VERIFIED' })).status, 200);
      await agent.getByRole('button', { name: 'Check with the platform' }).click();
      await agent.getByRole('button', { name: 'Launch agent' }).waitFor();
      await agent.getByText('Agent created').first().waitFor();
      const registered = (await rbmSandbox(`/agents/${agentId}`)).body.agent;
      assert.equal(registered.profile.description, 'Coffee to go, ordered by message.');
      assert.deepEqual(registered.profile.phoneNumbers, [{ phoneNumber: { number: '+420601999000' }, label: 'Call us' }]);

      // The launch needs the questionnaire: refused without it, then answered on the edit form.
      await agent.getByRole('button', { name: 'Launch agent' }).click();
      const launchConfirm = page.getByRole('alertdialog', { name: 'Launch agent?' });
      await launchConfirm.getByRole('button', { name: 'Launch agent' }).click();
      await launchConfirm
        .getByRole('alert')
        .getByText(/launch_questionnaire\.contacts/)
        .waitFor();
      await launchConfirm.getByRole('button', { name: 'Cancel' }).click();
      await edit({
        'Review contact name': 'Bob Brand',
        'Review contact e-mail': 'bob@corner.example',
        'How users opt in': 'At the counter.',
        'What triggers messages': 'An order is ready.',
        'The conversations': 'Order updates.',
        'What users get when they opt out': 'A confirmation, then nothing.',
        'How reviewers reach the agent': 'Write to the agent from a tester number.',
      });
      await agent.getByRole('button', { name: 'Launch agent' }).click();
      await page.getByRole('alertdialog', { name: 'Launch agent?' }).getByRole('button', { name: 'Launch agent' }).click();
      await agent.getByText('Waiting for the RCS platform').waitFor();
      await eventually(async () =>
        (await rbmSandbox(`/agents/${agentId}`)).body.agent.launch?.['sandbox-carrier'] === 'LAUNCH_STATE_PENDING' ? true : undefined,
      );
      // The reviewers reject it: the page says why, and offers the launch again.
      await rbmSandbox(`/agents/${agentId}/launch`, { carrier: 'sandbox-carrier', state: 'LAUNCH_STATE_REJECTED', comment: 'The logo is missing.' });
      await agent.getByRole('button', { name: 'Check with the platform' }).click();
      await agent.getByText(/The platform says: .*The logo is missing\./).waitFor();
      await agent.getByRole('button', { name: 'Launch agent' }).click();
      await page.getByRole('alertdialog', { name: 'Launch agent?' }).getByRole('button', { name: 'Launch agent' }).click();
      await agent.getByText('Waiting for the RCS platform').waitFor();
      await eventually(async () =>
        (await rbmSandbox(`/agents/${agentId}`)).body.agent.launch?.['sandbox-carrier'] === 'LAUNCH_STATE_PENDING' ? true : undefined,
      );
      await rbmSandbox(`/agents/${agentId}/launch`, { carrier: 'sandbox-carrier', state: 'LAUNCH_STATE_LAUNCHED' });
      await agent.getByRole('button', { name: 'Check with the platform' }).click();
      await agent.getByText('Nothing more to do: the agent is live.').waitFor();
      assert.equal(await agent.getByRole('button').count(), 0);
      assert.equal((await h.s.api.get(`/v1/channels/${id}`)).body.rbm.agent_state, 'launched');
      await checkAccessibility(page, 'a launched rbm agent');
      // Registering and launching without the fields the platform requires: refused, shown in the confirmations.
      await a.assertNoProblems([{ status: 422, path: `/admin/api/v1/channels/${id}` }]);
    });

    test('deleting a channel says what goes with it (its contacts counted) and removes it', async () => {
      const id = made.get('Café page');
      assert.ok(id);
      const channel = (await h.s.api.get(`/v1/channels/${id}`)).body;
      // A user of the page writes, so the channel has a contact and a message.
      const user = await h.snSandbox(`/pages/${channel.socialnet_page.id}/users`, { first_name: 'Jana', last_name: 'Nováková' });
      assert.equal(user.status, 201, user.text);
      const wrote = await h.snSandbox(`/pages/${channel.socialnet_page.id}/users/${user.body.user.psid}/messages`, { text: 'Are you open today?' });
      assert.equal(wrote.status, 200, wrote.text);
      const contacts = await h.s.api.get(`/v1/channels/${id}/contacts`);
      assert.equal(contacts.headers.get('x-total-count'), '1');

      const page = a.page;
      await a.goto(`/admin/channels/${id}`);
      await page.getByRole('button', { name: 'Delete channel' }).click();
      const confirm = page.getByRole('alertdialog', { name: 'Delete “Café page”?' });
      await confirm.getByText('its 1 contact, with their conversations, messages and stored files;').waitFor();
      await confirm.getByText(/log of webhook deliveries/).waitFor();
      await checkAccessibility(page, 'the delete confirmation');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'hidden' });
      assert.equal((await h.s.api.get(`/v1/channels/${id}`)).status, 200);

      await page.getByRole('button', { name: 'Delete channel' }).click();
      await confirm.getByRole('button', { name: 'Delete channel' }).click();
      await page.getByRole('heading', { name: 'Channels', level: 1 }).waitFor();
      await page
        .getByRole('grid', { name: 'Channels' })
        .getByRole('row', { name: /Site chat/ })
        .waitFor();
      assert.equal(await page.getByRole('row', { name: /Café page/ }).count(), 0);
      assert.equal((await h.s.api.get(`/v1/channels/${id}`)).status, 404);
      await a.assertNoProblems();
    });

    test("another account's channels never appear, in the list or at their address", async () => {
      const other = await h.s.newAccount();
      const theirs = await other.api.post('/v1/channels', { type: 'service_chat', name: 'Their private chat' });
      assert.equal(theirs.status, 201, theirs.text);
      const page = a.page;
      await a.goto('/admin/channels');
      await page
        .getByRole('grid', { name: 'Channels' })
        .getByRole('row', { name: /Site chat/ })
        .waitFor();
      assert.equal(await page.getByText('Their private chat').count(), 0);
      await a.goto(`/admin/channels/${theirs.body.id}`);
      await page.getByRole('alert').waitFor();
      assert.match((await page.getByRole('alert').textContent()) ?? '', /not found/i);
      assert.equal(await page.getByText('Their private chat').count(), 0);
      const direct = await a.context.request.get(`/admin/api/v1/channels/${theirs.body.id}`);
      assert.equal(direct.status(), 404);
      await a.goto(`/admin/channels/${theirs.body.id}/edit`);
      await page.getByRole('alert').waitFor();
      assert.equal(await page.getByText('Their private chat').count(), 0);
      await a.assertNoProblems([{ status: 404, path: /^\/admin\/api\/v1\/channels\/\d+$/ }]); // the other account's channel, asked for on purpose
    });

    test('an address the app does not have says so inside the app, with the way back', async () => {
      const page = a.page;
      await a.goto('/admin/no-such-page');
      await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      await checkAccessibility(page, 'the not found page');
      await page.getByRole('main').getByRole('link', { name: 'overview' }).click();
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      await a.assertNoProblems();
    });
  });
}
