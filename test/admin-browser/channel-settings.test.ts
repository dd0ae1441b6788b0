import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { checkAccessibility, chromiumMissing, type AdminPage } from '../helpers/admin-browser.js';
import { adminSuite } from '../helpers/admin-suite.js';
import { eventually } from '../helpers/waits.js';
import { connectPage, startStandIns, type StandIns } from './channel-fixtures.js';

// The Settings tab per type: the service_chat whitelist checked entry by entry as it is typed,
// the one-tag snippet copied, and the real widget in the live preview; the socialnet_chat get
// started button and a nested menu built, rearranged and refused while it breaks a rule, then
// saved on the platform (its stand-in).

const browserSkip = chromiumMissing();
const MENU = 'socialnet_chat: a nested menu shows the rule it breaks while edited, then is saved on the platform';

for (const { dialect, skip, test } of await dialects({ postgresSmoke: [MENU] })) {
  describe(`Admin app: the channel Settings tab in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    let standIns: StandIns;
    before(async () => {
      standIns = await startStandIns();
    });
    const admin = adminSuite(dialect, { env: () => standIns.env });
    after(async () => {
      await standIns?.close();
    });

    const fieldError = (a: AdminPage, scope: ReturnType<AdminPage['page']['locator']>, label: string) =>
      scope
        .locator('.field')
        .filter({ has: a.page.getByLabel(label, { exact: true }) })
        .locator('.field-error');

    test('service_chat: the whitelist is checked as typed and saved; the snippet is copied; the preview runs the real widget', async () => {
      const res = await admin.s.api.post('/v1/channels', { type: 'service_chat', name: 'Shop chat' });
      const id = res.body.id as string;
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${id}/settings`);
      await a.page.getByText('No domains: every connection attempt is refused.').waitFor();

      const add = a.page.getByLabel('Add a domain');
      const addButton = a.page.getByRole('button', { name: 'Add domain' });
      const page = a.page.locator('main');
      await add.fill('shop.example.com');
      await fieldError(a, page, 'Add a domain')
        .getByText(/^Must be an origin: protocol and domain/)
        .waitFor();
      assert.equal(await addButton.isDisabled(), true);
      await add.fill('https://shop.example.com:443');
      await fieldError(a, page, 'Add a domain').getByText('Leave out the standard port 443.').waitFor();
      await add.fill('https://shop.example.com');
      assert.equal(await fieldError(a, page, 'Add a domain').count(), 0);
      await addButton.click();
      await a.page.getByRole('list', { name: 'Whitelisted domains' }).getByText('https://shop.example.com').waitFor();
      await a.page.getByRole('button', { name: 'Save whitelist' }).click();
      await a.page.getByText('Whitelist saved.').waitFor();
      assert.deepEqual((await admin.s.api.get(`/v1/channels/${id}/settings`)).body.domains_whitelist, ['https://shop.example.com']);

      // The one tag for the site, copied as shown.
      const snippet = `<script src="${admin.s.origin}/widget.js" data-channel-id="${id}"></script>`;
      assert.equal(await a.page.getByTestId('widget-snippet').textContent(), snippet);
      await a.page.getByRole('button', { name: 'Copy snippet' }).click();
      await a.page.getByText('Copied').waitFor();
      assert.equal(await a.page.evaluate(() => navigator.clipboard.readText()), snippet);

      // The preview page is this server's: once its origin is listed, the real widget chats in the frame.
      await checkAccessibility(a.page, 'the service_chat Settings tab');
      await a.page.getByRole('button', { name: `Add ${admin.s.origin} to the whitelist` }).click();
      // The first save's notice is still on the page, so the second save is awaited at the server.
      const saved = await eventually(
        async () => {
          const list = (await admin.s.api.get(`/v1/channels/${id}/settings`)).body.domains_whitelist as string[];
          return list.length === 2 ? list : undefined;
        },
        15_000,
        'the preview origin saved',
      );
      assert.deepEqual(saved, ['https://shop.example.com', admin.s.origin]);
      await a.page.getByText('Whitelist saved.').waitFor();
      const frame = a.page.frameLocator('iframe[title="Web chat preview"]');
      const input = frame.getByRole('textbox', { name: 'Message' });
      await input.fill('Is the preview live?');
      await input.press('Enter');
      await frame.getByRole('log', { name: 'Messages' }).getByText('Is the preview live?').waitFor();
      const contacts = await admin.s.api.get(`/v1/channels/${id}/contacts`);
      assert.equal(contacts.body.length, 1, 'the preview chat is a real conversation of the channel');
      await a.assertNoProblems();
    });

    test('keyboard only: a whitelist entry is added with Enter and saved', async () => {
      const res = await admin.s.api.post('/v1/channels', { type: 'service_chat', name: 'Keyboard chat' });
      const id = res.body.id as string;
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${id}/settings`);
      await a.page.getByLabel('Add a domain').focus();
      await a.page.keyboard.type('http://localhost:3000');
      await a.page.keyboard.press('Enter');
      await a.page.getByRole('list', { name: 'Whitelisted domains' }).getByText('http://localhost:3000').waitFor();
      assert.equal(await a.page.getByLabel('Add a domain').inputValue(), '', 'the field is ready for the next entry');
      // The Add button is disabled while the field is empty, so Tab goes on to Save whitelist.
      await a.page.keyboard.press('Tab');
      assert.equal(await a.page.evaluate(() => document.activeElement?.textContent), 'Save whitelist');
      await a.page.keyboard.press('Enter');
      await a.page.getByText('Whitelist saved.').waitFor();
      assert.deepEqual((await admin.s.api.get(`/v1/channels/${id}/settings`)).body.domains_whitelist, ['http://localhost:3000']);
      await a.assertNoProblems();
    });

    test(MENU, async () => {
      const { channelId, pageId } = await connectPage(admin.s, standIns, 'Bakery');
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${channelId}/settings`);

      await a.page.getByText('Show a get started button').click();
      await a.page.getByLabel('Get started payload').fill('START');

      await a.page.getByRole('button', { name: 'Add a locale menu' }).click();
      // The fields of one menu item (not of the items nested in it), by its number.
      const item = (name: string) => a.page.getByTestId(`menu-item-0-${name}`);
      await item('1').getByLabel('Title', { exact: true }).fill('Opening hours');
      await item('1').getByLabel('Payload', { exact: true }).fill('HOURS');

      // A submenu, whose first item has a title over the limit and a URL that is not one.
      await a.page.getByRole('button', { name: 'Add item to the default menu' }).click();
      await item('2').getByRole('button', { name: /Kind$/ }).click();
      await a.page.getByRole('option', { name: 'Submenu' }).click();
      await item('2').getByLabel('Title', { exact: true }).fill('Shop');
      const child = item('2.1');
      await child.getByRole('button', { name: /Kind$/ }).click();
      await a.page.getByRole('option', { name: 'Open a URL' }).click();
      await child.getByLabel('Title', { exact: true }).fill('Everything we bake, day by day!');
      await fieldError(a, child, 'Title').getByText('At most 30 characters (now 31).').waitFor();
      await child.getByLabel('URL', { exact: true }).fill('shop.example.com/catalogue');
      await fieldError(a, child, 'URL').getByText('Enter an absolute URL, e.g. https://shop.example.com/help.').waitFor();
      await a.page.getByRole('button', { name: 'Save settings' }).click();
      await a.page.getByText('Not saved: 2 fields break a rule (marked below).').waitFor();
      assert.equal((await admin.s.api.get(`/v1/channels/${channelId}/settings`)).body.menu, null, 'nothing was sent');

      await child.getByLabel('Title', { exact: true }).fill('Catalogue');
      await child.getByLabel('URL', { exact: true }).fill('https://shop.example.com/catalogue');
      assert.equal(await child.locator('.field-error').count(), 0);

      // A third item nested into the submenu above it, then moved to the submenu's top.
      await a.page.getByRole('button', { name: 'Add item to the default menu' }).click();
      await item('3').getByLabel('Title', { exact: true }).fill('Talk to us');
      await item('3').getByLabel('Payload', { exact: true }).fill('CONTACT');
      await a.page.getByRole('button', { name: 'Nest item 3 into the submenu above' }).click();
      await item('2.2').getByLabel('Title', { exact: true }).waitFor();
      assert.equal(await item('2.2').getByLabel('Title', { exact: true }).inputValue(), 'Talk to us');
      await a.page.getByRole('button', { name: 'Move item 2.2 up' }).click();
      assert.equal(await item('2.1').getByLabel('Title', { exact: true }).inputValue(), 'Talk to us');
      assert.equal(await a.page.getByRole('button', { name: 'Add item to the default menu' }).isDisabled(), false, 'two of three items at the top');

      // Disabling user input needs a menu: fine here. Then saved, on the platform too.
      await a.page.getByRole('button', { name: 'Add a locale', exact: true }).click();
      await a.page.getByRole('group', { name: 'User input for default' }).getByText('People may type messages').click();
      await checkAccessibility(a.page, 'the socialnet_chat Settings tab while editing a menu');
      await a.page.getByRole('button', { name: 'Save settings' }).click();
      await a.page.getByText('Settings saved on the platform.').waitFor();
      const saved = (await admin.s.api.get(`/v1/channels/${channelId}/settings`)).body;
      assert.deepEqual(saved.get_started_button, { payload: 'START' });
      assert.deepEqual(saved.menu, [
        {
          locale: 'default',
          items: [
            { type: 'postback', title: 'Opening hours', payload: 'HOURS' },
            {
              type: 'menu',
              title: 'Shop',
              items: [
                { type: 'postback', title: 'Talk to us', payload: 'CONTACT' },
                { type: 'url', title: 'Catalogue', payload: 'https://shop.example.com/catalogue' },
              ],
            },
          ],
        },
      ]);
      assert.deepEqual(saved.user_inputs, [{ locale: 'default', enabled: false }]);
      const profile = await standIns.sn(`/pages/${pageId}/profile`);
      assert.match(JSON.stringify(profile.body.profile), /Catalogue/, 'the menu reached the platform');

      // Removing the menu while user input is off breaks a rule the form shows at once.
      await a.page.getByRole('button', { name: 'Remove menu for default' }).click();
      await a.page.getByText('Disabling user input requires a menu to be set.').waitFor();
      await a.assertNoProblems();
    });
  });
}
