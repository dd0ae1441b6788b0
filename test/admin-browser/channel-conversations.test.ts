import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { checkAccessibility, chromiumMissing } from '../helpers/admin-browser.js';
import { adminSuite } from '../helpers/admin-suite.js';
import { eventually } from '../helpers/waits.js';
import { connectPage, pageUserSays, startStandIns, type StandIns } from './channel-fixtures.js';

// The Conversations tab: contacts of a socialnet_chat page (its stand-in), newest activity first
// and searchable; a conversation read live (what the user writes appears without a reload, with
// attachments, cards and quick replies rendered, delivered and read marks as receipts come) and
// answered by the operator with text and quick replies, which reach the platform.

const browserSkip = chromiumMissing();
const LIVE = 'a conversation is read live and answered: the reply with its quick replies reaches the platform';

for (const { dialect, skip, test } of await dialects({ postgresSmoke: [LIVE] })) {
  describe(`Admin app: the channel Conversations tab in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    let standIns: StandIns;
    before(async () => {
      standIns = await startStandIns();
    });
    const admin = adminSuite(dialect, { server: { workers: true }, env: () => standIns.env });
    after(async () => {
      await standIns?.close();
    });

    /** The one contact of a channel with a single end user. */
    async function onlyContact(channelId: string): Promise<{ id: string; name: string }> {
      const list = (await admin.s.api.get(`/v1/channels/${channelId}/contacts`)).body as Array<{ id: string; name: string }>;
      assert.equal(list.length, 1);
      return list[0]!;
    }

    test(LIVE, async () => {
      const { channelId, pageId } = await connectPage(admin.s, standIns, 'Bakery');
      const psid = await pageUserSays(standIns, pageId, 'Do you have rye bread?');
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${channelId}/conversations`);
      const contact = a.page.getByTestId('contact');
      await contact.first().waitFor();
      assert.equal(await contact.count(), 1);
      assert.match((await contact.textContent()) ?? '', /Do you have rye bread\?/, 'the newest message is shown by the contact');
      await contact.click();
      const messages = a.page.getByRole('list', { name: 'Messages' }).getByTestId('message');
      await messages.filter({ hasText: 'Do you have rye bread?' }).waitFor();
      assert.equal(await messages.first().getAttribute('data-direction'), 'received');
      await a.page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));

      // What the user writes next, and a picture, appear without reloading the page.
      await pageUserSays(standIns, pageId, 'And a croissant?', psid);
      await messages.filter({ hasText: 'And a croissant?' }).waitFor();
      await standIns.sn(`/pages/${pageId}/users/${psid}/attachments`, { type: 'image' });
      const picture = messages.locator('img[alt="Image attachment"]');
      await picture.waitFor();
      assert.ok(
        (await picture.getAttribute('src'))?.startsWith('/') || (await picture.getAttribute('src'))?.startsWith(admin.s.origin),
        'a stored copy on this server',
      );
      assert.equal(await a.page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed), true, 'no reload');

      // The operator answers with text and two quick replies.
      await a.page.getByLabel('Message', { exact: true }).fill('Yes, both. Shall we keep them for you?');
      await a.page.getByRole('button', { name: 'Add quick reply' }).click();
      const first = a.page.getByRole('group', { name: 'Quick reply 1' });
      await first.getByLabel('Title', { exact: true }).fill('Keep them');
      await first.getByLabel('Payload', { exact: true }).fill('KEEP');
      await a.page.getByRole('button', { name: 'Add quick reply' }).click();
      const second = a.page.getByRole('group', { name: 'Quick reply 2' });
      await second.getByLabel('Title', { exact: true }).fill('No thanks');
      await second.getByLabel('Payload', { exact: true }).fill('NO');
      await a.page.getByRole('button', { name: 'Send', exact: true }).click();
      const reply = messages.filter({ hasText: 'Yes, both. Shall we keep them for you?' });
      await reply.waitFor();
      assert.equal(await reply.getAttribute('data-direction'), 'sent');
      assert.deepEqual(await reply.getByRole('list', { name: 'Quick replies' }).getByRole('listitem').allTextContents(), ['Keep them', 'No thanks']);
      assert.equal(await a.page.getByLabel('Message', { exact: true }).inputValue(), '', 'the composer is emptied');
      const platform = (await standIns.sn(`/pages/${pageId}/messages?psid=${psid}`)).body.messages as Array<{ message: any }>;
      const sent = platform.find((m) => m.message?.text === 'Yes, both. Shall we keep them for you?');
      assert.ok(sent, 'the reply reached the platform');
      assert.deepEqual(
        sent.message.quick_replies.map((q: any) => [q.title, q.payload]),
        [
          ['Keep them', 'KEEP'],
          ['No thanks', 'NO'],
        ],
      );

      // Receipts from the platform mark the reply delivered, then read.
      await reply.locator('[data-mark=sent]').waitFor();
      await standIns.sn(`/pages/${pageId}/users/${psid}/deliver`, {});
      await reply.locator('[data-mark=delivered]').waitFor();
      await standIns.sn(`/pages/${pageId}/users/${psid}/read`, {});
      await reply.locator('[data-mark=read]').waitFor();

      // A card sent through the API shows as a card with its buttons.
      const card = await admin.s.api.post('/v1/messages', {
        channel: { id: channelId },
        contact: { id: (await onlyContact(channelId)).id },
        content: {
          type: 'structure',
          payload: { title: 'Rye loaf', text: 'Baked at 6 every morning', buttons: [{ type: 'postback', title: 'Reserve', payload: 'RESERVE_RYE' }] },
        },
      });
      assert.equal(card.status, 201, card.text);
      const shown = messages.filter({ hasText: 'Rye loaf' });
      await shown.getByText('Baked at 6 every morning').waitFor();
      assert.equal(await shown.getByRole('list', { name: 'Buttons' }).getByRole('listitem').count(), 1);

      await checkAccessibility(a.page, 'the Conversations tab with a conversation open');
      await a.assertNoProblems();
    });

    test('contacts are listed by newest activity and found by search; a refused reply says why', async () => {
      const { channelId, pageId } = await connectPage(admin.s, standIns, 'Florist');
      const early = await pageUserSays(standIns, pageId, 'First customer here');
      await pageUserSays(standIns, pageId, 'Second customer here');
      // The first customer writes again: now the newest activity. A contact's activity is kept
      // to the second, so the reply comes a second after the second customer's message.
      const secondWrote = Date.now();
      await eventually(async () => (Date.now() > secondWrote + 1000 ? true : undefined), 5_000, 'a second passed');
      await pageUserSays(standIns, pageId, 'Roses, please', early);
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${channelId}/conversations`);
      const contacts = a.page.getByTestId('contact');
      await contacts.nth(1).waitFor();
      assert.match((await contacts.nth(0).textContent()) ?? '', /Roses, please/);
      assert.match((await contacts.nth(1).textContent()) ?? '', /Second customer here/);

      const second = (await admin.s.api.get(`/v1/channels/${channelId}/contacts`)).body.find((c: any) => !JSON.stringify(c).includes(early));
      await a.page.getByLabel('Search contacts').fill(second.name);
      await a.page.waitForFunction(() => document.querySelectorAll('[data-testid=contact]').length === 1);
      assert.match((await contacts.textContent()) ?? '', /Second customer here/);
      await a.page.getByLabel('Search contacts').fill('nobody by this name');
      await a.page.getByText('No contact matches.').waitFor();
      await a.page.getByLabel('Search contacts').fill('');
      await contacts.nth(1).waitFor();

      // A message the platform refuses: the page's connection is gone.
      await contacts.first().click();
      await standIns.sn(`/pages/${pageId}/disconnect`, {});
      await a.page.getByLabel('Message', { exact: true }).fill('Are you still there?');
      await a.page.getByRole('button', { name: 'Send', exact: true }).click();
      const refused = a.page.locator('.ch-composer [role=alert]');
      await refused.waitFor();
      assert.ok(((await refused.textContent()) ?? '').length > 0);
      assert.equal(await a.page.getByLabel('Message', { exact: true }).inputValue(), 'Are you still there?', 'the text stays to send again');
      await checkAccessibility(a.page, 'the Conversations tab with a refused reply');
      // The 502 the app answered in words, and nothing else.
      await a.assertNoProblems([{ status: 502, path: '/admin/api/v1/messages' }]);
    });
  });
}
