import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { checkAccessibility, chromiumMissing, createAdminUser, TEST_PASSWORD_ENV, type AdminPage } from '../helpers/admin-browser.js';
import { adminSuite } from '../helpers/admin-suite.js';
import { startTestServer } from '../helpers/runtime.js';
import { eventually } from '../helpers/waits.js';
import { connectPage, mobileChannel, startStandIns, type StandIns } from './channel-fixtures.js';

// The Local trial tab with the platform stand-ins running: the user plays the channel's end user
// (the stand-in writes through the platform's real inbound path) and answers as the operator in
// the same view, for socialnet_chat and mobile; service_chat runs its real widget in a frame;
// without the stand-ins the tab tells how to start them.

const browserSkip = chromiumMissing();
const SOCIAL = 'socialnet_chat: a message written as the end user arrives, and the answer reaches the platform';

for (const { dialect, skip, test } of await dialects({ postgresSmoke: [SOCIAL] })) {
  describe(`Admin app: the channel Local trial tab in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    let standIns: StandIns;
    before(async () => {
      standIns = await startStandIns();
    });
    const admin = adminSuite(dialect, { server: { workers: true }, env: () => standIns.env });
    after(async () => {
      await standIns?.close();
    });

    const messages = (a: AdminPage) => a.page.getByRole('list', { name: 'Messages' }).getByTestId('message');

    async function writeAsEndUser(a: AdminPage, text: string): Promise<void> {
      await a.page.getByLabel("End user's message").fill(text);
      await a.page.getByRole('button', { name: 'Send as end user' }).click();
      await a.page.getByText(`Sent "${text}" through the stand-in.`).waitFor();
      await messages(a).filter({ hasText: text }).waitFor();
    }

    async function answer(a: AdminPage, text: string): Promise<void> {
      await a.page.getByLabel('Message', { exact: true }).fill(text);
      await a.page.getByRole('button', { name: 'Send', exact: true }).click();
      await messages(a).filter({ hasText: text }).waitFor();
    }

    test(SOCIAL, async () => {
      const { channelId, pageId } = await connectPage(admin.s, standIns, 'Bakery');
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${channelId}/trial`);
      // No contact picked: writing as "the contact shown below" is unticked and off.
      const asShown = a.page.getByRole('checkbox', { name: 'Write as the contact shown below' });
      assert.equal(await asShown.isChecked(), false, 'unticked while no contact is picked');
      assert.equal(await asShown.isDisabled(), true, 'off while no contact is picked');
      await a.page.getByText('Pick a contact below to write as them.', { exact: false }).waitFor();
      await writeAsEndUser(a, 'Hello, is anyone there?');
      assert.match(a.page.url(), /\/trial\?contact=\d+$/, 'the conversation of the new contact is open');
      // The trial user's contact, picked now: writing as it is ticked and can be unticked.
      await eventually(async () => ((await asShown.isDisabled()) ? undefined : true), 10_000, 'the checkbox on once the contact is picked');
      assert.equal(await asShown.isChecked(), true);
      const contactId = new URL(a.page.url()).searchParams.get('contact');
      const stored = (await admin.s.api.get(`/v1/channels/${channelId}/contacts/${contactId}/messages`)).body;
      assert.equal(stored[0].direction, 'received');
      assert.deepEqual(stored[0].content, { type: 'text', payload: 'Hello, is anyone there?' });

      await answer(a, 'Welcome to the bakery!');
      const platform = JSON.stringify((await standIns.sn(`/pages/${pageId}/messages`)).body.messages);
      assert.match(platform, /Welcome to the bakery!/, 'the answer reached the platform');

      // Writing again as the contact shown continues the same conversation.
      await writeAsEndUser(a, 'Great, thanks');
      assert.equal(new URL(a.page.url()).searchParams.get('contact'), contactId);
      assert.equal(await a.page.getByTestId('contact').count(), 1);
      await checkAccessibility(a.page, 'the Local trial tab of a socialnet_chat channel');
      await a.assertNoProblems();
    });

    test('mobile: an SMS from the trial phone arrives; the answer is sent to that phone', async () => {
      const channelId = await mobileChannel(admin.s);
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${channelId}/trial`);
      await writeAsEndUser(a, 'When do you open?');
      await a.page.getByTestId('contact').filter({ hasText: '+447700900123' }).waitFor();
      await answer(a, 'At 7 every morning.');
      // The send job hands the SMS to the provider just after the answer is stored.
      const sent = await eventually(
        async () => (await standIns.sms('/messages')).body.messages.find((m: unknown) => JSON.stringify(m).includes('At 7 every morning.')),
        10_000,
        'the SMS at the provider',
      );
      assert.ok(sent, 'the SMS went to the provider');
      assert.match(JSON.stringify(sent), /447700900123/);
      await checkAccessibility(a.page, 'the Local trial tab of a mobile channel');
      await a.assertNoProblems();
    });

    test('service_chat: the real widget in a frame chats with the operator', async () => {
      const res = await admin.s.api.post('/v1/channels', { type: 'service_chat', name: 'Shop chat' });
      const channelId = res.body.id as string;
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${channelId}/trial`);
      await a.page.getByRole('button', { name: `Add ${admin.s.origin} to the whitelist` }).click();
      await a.page.getByText(`${admin.s.origin} is on the whitelist now.`).waitFor();
      const frame = a.page.frameLocator('iframe[title="Web chat preview"]');
      await frame.getByRole('textbox', { name: 'Message' }).fill('Do you ship abroad?');
      await frame.getByRole('textbox', { name: 'Message' }).press('Enter');
      await a.page.getByTestId('contact').first().click();
      await messages(a).filter({ hasText: 'Do you ship abroad?' }).waitFor();
      await answer(a, 'Yes, across Europe.');
      await frame.getByRole('log', { name: 'Messages' }).getByText('Yes, across Europe.').waitFor();
      await checkAccessibility(a.page, 'the Local trial tab of a service_chat channel');
      await a.assertNoProblems();
    });

    test('without the stand-ins the tab says how to start them', async () => {
      const off = await startTestServer(dialect, { env: { ...TEST_PASSWORD_ENV } });
      try {
        const user = await createAdminUser(off, off.accountId, 'owner@example.com', 'owner');
        const made = await off.api.post('/v1/channels', {
          type: 'mobile',
          name: 'SMS',
          mode: 'test',
          provider: { type: 'smsprovider', sender_id: 'Shop', access_token: 'x', signing_key: 'y' },
        });
        assert.equal(made.status, 201, made.text);
        const a = await admin.app.open(off.origin, user);
        await a.goto(`/admin/channels/${made.body.id}/trial`);
        await a.page.getByRole('heading', { name: 'The local trial is off' }).waitFor();
        await a.page.getByText('npm run sandbox').waitFor();
        await a.page.getByText('export SANDBOX_URL=http://127.0.0.1:9101').waitFor();
        assert.equal(await a.page.getByLabel("End user's message").count(), 0);
        await checkAccessibility(a.page, 'the Local trial tab without stand-ins');
        await a.assertNoProblems();
      } finally {
        await off.close();
      }
    });
  });
}
